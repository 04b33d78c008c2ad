import { Svcm } from '@nats-io/services';
import pg from 'pg';
import type { Logger, ServiceRuntime } from '@catalog/platform';
import { testInfrastructure, uniqueNatsPrefix, type TestDatabase } from './infrastructure.js';
import { testLogger } from './logging.js';
import { serviceEnvironment, testBus } from './service-environment.js';

export interface ServiceProbe {
  /** Tables in the service's schema. */
  tables: string[];
  /** Names of the NATS services that answered a ping for this service. */
  registered: string[];
  /** The versions they announced. */
  versions: string[];
  ready: { status: number; body: unknown };
}

/** What a started service shows from outside: its schema, its NATS registration, its readiness. */
export async function probeRunningService(
  runtime: Pick<ServiceRuntime<unknown>, 'name' | 'http'>,
  settings: { databaseUrl: string; natsUrl: string; schema: string },
): Promise<ServiceProbe> {
  const client = new pg.Client({ connectionString: settings.databaseUrl });
  await client.connect();
  let tables: string[];
  try {
    const { rows } = await client.query<{ table_name: string }>(
      'select table_name from information_schema.tables where table_schema = $1 order by 1',
      [settings.schema],
    );
    tables = rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
  const observer = await testBus('probe', { url: settings.natsUrl });
  const registered: string[] = [];
  const versions: string[] = [];
  try {
    for await (const identity of await new Svcm(observer).client().ping(runtime.name)) {
      registered.push(identity.name);
      versions.push(identity.version);
    }
  } finally {
    await observer.drain();
  }
  if (!runtime.http) throw new Error(`${runtime.name} has no HTTP listener`);
  const response = await fetch(`${runtime.http.url}/readyz`);
  return { tables, registered, versions, ready: { status: response.status, body: await response.json() } };
}

/**
 * Starts service `name` as its `main.ts` would, from the environment of `serviceEnvironment` (a
 * NATS prefix of its own, HTTP on a free port of 127.0.0.1), and probes it (`probeRunningService`).
 * The caller stops the runtime; a failed probe stops it here.
 */
export async function startProbedService<R extends Pick<ServiceRuntime<unknown>, 'name' | 'http' | 'stop'>>(
  database: TestDatabase,
  name: string,
  start: (env: Record<string, string>, logger: Logger) => Promise<R>,
): Promise<{ runtime: R; probe: ServiceProbe }> {
  const env = {
    ...(await serviceEnvironment(database, [name])),
    NATS_PREFIX: uniqueNatsPrefix(),
    [`${name.toUpperCase()}_HTTP_PORT`]: '0',
    HTTP_HOST: '127.0.0.1',
  };
  const runtime = await start(env, testLogger());
  try {
    const probe = await probeRunningService(runtime, { databaseUrl: database.url, natsUrl: testInfrastructure().natsUrl, schema: name });
    return { runtime, probe };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
