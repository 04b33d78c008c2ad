import {
  SCHEMA_OWNER_ROLE,
  callContextKeys,
  connectBus,
  serviceRoleOf,
  type CallContextKeys,
  type NatsConnection,
} from '@catalog/platform';
import { BUS_SERVICES } from '@catalog/contracts';
import { ensureTestRoles, testInfrastructure, type TestDatabase } from './infrastructure.js';
import { natsUsers, testCredentials } from './local-credentials.js';
import { testLogger } from './logging.js';

/** The NATS user `user` (a service, `admin` or `nobody`) of the test server; none on a server without users. */
export function natsCredentialsOf(user: string): { user?: string; password?: string } {
  return natsUsers() ? { user, password: testCredentials().natsPassword(user) } : {};
}

/**
 * The variables that make services of one environment map each work as themselves, as in
 * production (decisions 0055-0057): migrations as the schema owner, each service's pool as its
 * own login role `<schema>_app` (`<SERVICE>_DATABASE_URL`), each service's own NATS user
 * (`<SERVICE>_NATS_PASSWORD`; a service that is not one of the six connects as `admin`), and the
 * call context secret and the asset service's URL signing key, as `npm start` gives them. `services` are schema names; their roles are made on first use.
 */
export async function serviceEnvironment(
  database: TestDatabase,
  services: readonly string[] = BUS_SERVICES,
): Promise<Record<string, string>> {
  await ensureTestRoles(services);
  const env: Record<string, string> = {
    NATS_URL: testInfrastructure().natsUrl,
    MIGRATION_DATABASE_URL: database.urlAs(SCHEMA_OWNER_ROLE),
    CALL_CONTEXT_SECRET: testCredentials().callContextSecret,
    BLOB_SIGNING_SECRET: testCredentials().blobSigningSecret,
  };
  for (const service of services) {
    const name = service.toUpperCase();
    env[`${name}_DATABASE_URL`] = database.urlAs(serviceRoleOf(service));
    const nats = natsCredentialsOf((BUS_SERVICES as readonly string[]).includes(service) ? service : 'admin');
    if (nats.user !== undefined) {
      env[`${name}_NATS_USER`] = nats.user;
      env[`${name}_NATS_PASSWORD`] = nats.password!;
    }
  }
  return env;
}

/** The keys the test services sign and check call contexts with (CALL_CONTEXT_SECRET of `serviceEnvironment`). */
export function testCallContext(): CallContextKeys {
  return callContextKeys(testCredentials().callContextSecret);
}

/** A NATS connection of a test, as `user` (default `admin`, who may do anything). */
export function testBus(name: string, options: { user?: string; url?: string } = {}): Promise<NatsConnection> {
  return connectBus({
    url: options.url ?? testInfrastructure().natsUrl,
    name,
    logger: testLogger('bus'),
    ...natsCredentialsOf(options.user ?? 'admin'),
  });
}
