import { CALL_CONTEXT_SECRET_MIN_LENGTH, CALL_CONTEXT_TTL_MS } from '../bus/context.js';
import { httpTimeoutsEnv, type HttpTimeouts } from '../http/timeouts.js';
import { Env, type EnvValues } from '../support/env-schema.js';
import { defineConfig, type ConfigCheck, type ConfigDefinition } from './read-config.js';

/** Settings every service shares. */
export interface CommonConfig {
  serviceName: string;
  logLevel: string;
  /** The service's own login role (decision 0057): `<SERVICE>_DATABASE_URL`, else `DATABASE_URL`. */
  databaseUrl: string;
  /** The role that owns the schemas and runs migrations. */
  migrationDatabaseUrl: string;
  dbPoolSize: number;
  /** Parameterised statements each connection prepares (inside and outside transactions); 0: none. */
  dbPreparedStatementsPerConnection: number;
  /** Postgres cancels a statement of the service's pool running longer than this; 0: never. */
  dbStatementTimeoutMs: number;
  /** Postgres ends a session of the service's pool idle inside a transaction this long; 0: never. */
  dbIdleInTransactionTimeoutMs: number;
  /**
   * Start even when the login role is a superuser, may bypass row-level security or owns the
   * service's tables (development only; never set by the chart).
   */
  dbAllowPrivilegedRole: boolean;
  natsUrl: string;
  natsPrefix: string;
  /** Replicas of the JetStream streams the services create and reconcile on start (decision 0131). */
  jetstreamReplicas: number;
  /** The service's NATS user (decision 0055), unset on a server without authorization. */
  natsUser: string | undefined;
  natsPassword: string | undefined;
  /** Key of the signed call contexts, the same on every service (decision 0056). */
  callContextSecret: string;
  callContextTtlMs: number;
  httpHost: string;
  httpPort: number;
  shutdownTimeoutMs: number;
  /** Apply the service's migrations when it starts (off when a deployment job runs them). */
  migrateOnStart: boolean;
  /** Timeouts of the service's HTTP listener (decision 0050). */
  http: HttpTimeouts;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
const POSTGRES = ['postgres', 'postgresql'];

/** The database URLs: the service's own login role, the shared one, the schema owner's. */
function databaseUrlsEnv(own: string) {
  return Env.group({
    own: Env.optional(
      Env.url({
        env: `${own}_DATABASE_URL`,
        protocols: POSTGRES,
        secret: true,
        description:
          "The service's own login role `<service>_app` (decision 0057), used instead of `DATABASE_URL`. The service refuses to " +
          'start as a superuser, a BYPASSRLS role or an owner of its tables unless `DB_ALLOW_PRIVILEGED_ROLE=true`.',
      }),
    ),
    shared: Env.optional(
      Env.url({
        env: 'DATABASE_URL',
        protocols: POSTGRES,
        secret: true,
        description: 'Required unless `<SERVICE>_DATABASE_URL` is set.',
      }),
    ),
    migration: Env.optional(
      Env.url({
        env: 'MIGRATION_DATABASE_URL',
        protocols: POSTGRES,
        secret: true,
        defaultText: "the service's database URL",
        description: 'The schema owner `catalog_service_owner`, which runs the migrations.',
      }),
    ),
  });
}

/** The NATS credentials: the service's own user, or the shared one. */
function natsCredentialsEnv(own: string) {
  return Env.group({
    ownUser: Env.optional(
      Env.string({
        env: `${own}_NATS_USER`,
        defaultText: "the service's name",
        description: 'The NATS user of `<SERVICE>_NATS_PASSWORD`.',
      }),
    ),
    ownPassword: Env.optional(
      Env.secret({
        env: `${own}_NATS_PASSWORD`,
        description: "The service's own NATS password (decision 0055), used instead of `NATS_PASSWORD`.",
      }),
    ),
    sharedUser: Env.optional(Env.string({ env: 'NATS_USER', description: 'Required with `NATS_PASSWORD`.' })),
    sharedPassword: Env.optional(Env.secret({ env: 'NATS_PASSWORD', description: 'NATS password; unset: no authentication.' })),
  });
}

/** The settings of the service's database pool. */
const DATABASE_ENV = {
  dbPoolSize: Env.integer({
    env: 'DB_POOL_SIZE',
    default: 10,
    minimum: 1,
    maximum: 200,
    description: "Connections of the service's pool.",
  }),
  dbPreparedStatementsPerConnection: Env.integer({
    env: 'DB_PREPARED_STATEMENTS_PER_CONNECTION',
    default: 200,
    minimum: 0,
    maximum: 10_000,
    description: 'Parameterised statements each connection prepares; 0: none (decisions 0009, 0110).',
  }),
  dbStatementTimeoutMs: Env.integer({
    env: 'DB_STATEMENT_TIMEOUT_MS',
    default: 30_000,
    minimum: 0,
    description: 'Postgres cancels a statement running longer; 0: never.',
  }),
  dbIdleInTransactionTimeoutMs: Env.integer({
    env: 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    default: 60_000,
    minimum: 0,
    description: 'Postgres ends a session idle inside a transaction this long; 0: never.',
  }),
  dbAllowPrivilegedRole: Env.boolean({
    env: 'DB_ALLOW_PRIVILEGED_ROLE',
    default: false,
    description: 'Start even as a privileged role (superuser, BYPASSRLS, owner of the tables); development only.',
  }),
};

/** The settings whose variables are the same for every service. */
const PROCESS_ENV = {
  logLevel: Env.oneOf(LOG_LEVELS, { env: 'LOG_LEVEL', default: 'info', description: 'Least level of the log lines written.' }),
  callContextSecret: Env.secret({
    env: 'CALL_CONTEXT_SECRET',
    minLength: CALL_CONTEXT_SECRET_MIN_LENGTH,
    description:
      "Key of the signed call contexts, the same on every service (decision 0056); the library's track cursors are signed with a key derived from it (changing it makes outstanding ones malformed, decision 0116).",
  }),
  callContextTtlMs: Env.integer({
    env: 'CALL_CONTEXT_TTL_MS',
    default: CALL_CONTEXT_TTL_MS,
    minimum: 1_000,
    maximum: 600_000,
    description: 'How long a signed call context stays valid.',
  }),
  httpHost: Env.string({
    env: 'HTTP_HOST',
    default: '127.0.0.1',
    description: 'Address the HTTP listener binds: this machine only by default; the chart sets `0.0.0.0` for a pod (decision 0117).',
  }),
  shutdownTimeoutMs: Env.integer({
    env: 'SHUTDOWN_TIMEOUT_MS',
    default: 10_000,
    minimum: 0,
    description: 'Longest wait for open requests when stopping.',
  }),
  migrateOnStart: Env.boolean({
    env: 'MIGRATE_ON_START',
    default: true,
    description: "Apply the service's migrations when it starts (`npm run migrate` migrates every schema).",
  }),
  http: httpTimeoutsEnv,
};

/** The variables every service reads; `<SERVICE>_…` ones are the service's own (one environment may hold every service's). */
function commonEnv(serviceName: string, defaultPort: number, portVariable: string) {
  const own = serviceName.toUpperCase();
  return Env.group({
    databaseUrls: databaseUrlsEnv(own),
    ...DATABASE_ENV,
    natsUrl: Env.string({ env: 'NATS_URL', default: 'nats://127.0.0.1:4222', description: 'The NATS servers, comma-separated.' }),
    natsPrefix: Env.string({ env: 'NATS_PREFIX', default: 'cs', description: 'First token of every subject and name of the streams.' }),
    jetstreamReplicas: Env.integer({
      env: 'JETSTREAM_REPLICAS',
      default: 1,
      minimum: 1,
      maximum: 5,
      description:
        'Replicas of the JetStream streams (events, dead letters): used when a service creates a stream and applied on start to an ' +
        'existing one with another count (decision 0131). More than 1 needs a clustered NATS; the chart sets 3 with its in-chart NATS.',
    }),
    natsCredentials: natsCredentialsEnv(own),
    ...PROCESS_ENV,
    httpPort: Env.integer({
      env: portVariable,
      default: defaultPort,
      minimum: 0,
      maximum: 65535,
      description: 'Port of the HTTP listener; 0: any free one.',
    }),
  });
}

/**
 * The NATS credentials: `<SERVICE>_NATS_PASSWORD` (the user is the service's name unless
 * `<SERVICE>_NATS_USER` says otherwise), else `NATS_USER`/`NATS_PASSWORD`. The per-service
 * variables let one environment (a test harness, `npm start`) hold every service's credentials.
 */
function natsCredentials(
  { ownUser, ownPassword, sharedUser, sharedPassword }: EnvValues<ReturnType<typeof natsCredentialsEnv>>,
  serviceName: string,
  check: ConfigCheck,
): Pick<CommonConfig, 'natsUser' | 'natsPassword'> {
  if (ownPassword !== undefined) return { natsUser: ownUser ?? serviceName, natsPassword: ownPassword };
  const natsUser = sharedPassword === undefined ? sharedUser : check.required('NATS_USER', sharedUser);
  return { natsUser, natsPassword: sharedPassword };
}

export interface CommonConfigOptions {
  /** The variable of the HTTP port; default `<SERVICE>_HTTP_PORT`. */
  portVariable?: string;
}

/** The settings every service shares, read from the environment (`readConfig(commonConfig('catalog', 8081))`). */
export function commonConfig(
  serviceName: string,
  defaultPort: number,
  options: CommonConfigOptions = {},
): ConfigDefinition<ReturnType<typeof commonEnv>, CommonConfig> {
  const schema = commonEnv(serviceName, defaultPort, options.portVariable ?? `${serviceName.toUpperCase()}_HTTP_PORT`);
  return defineConfig(schema, (values, check): CommonConfig => {
    const { databaseUrls, natsCredentials: nats, ...rest } = values;
    const databaseUrl = databaseUrls.own ?? check.required('DATABASE_URL', databaseUrls.shared);
    return {
      ...rest,
      serviceName,
      databaseUrl,
      migrationDatabaseUrl: databaseUrls.migration ?? databaseUrl,
      ...natsCredentials(nats, serviceName, check),
    };
  });
}
