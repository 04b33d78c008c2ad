import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SCHEMA_OWNER_ROLE, serviceRoleOf, setupDatabaseRoles, sleep } from '@catalog/platform';
import { testCredentials } from './local-credentials.js';
import { startOwnPostgres } from './own-postgres.js';

/**
 * Test infrastructure comes from the environment (DATABASE_URL, NATS_URL, CATALOG_CREDENTIALS_FILE),
 * started by `npm test` / `.ci/run`; every test file works in a database and a NATS subject prefix
 * of its own. DATABASE_URL is an administrator of the server (it creates databases and roles).
 */
export function testInfrastructure(): { databaseUrl: string; natsUrl: string } {
  const databaseUrl = process.env.DATABASE_URL;
  const natsUrl = process.env.NATS_URL;
  if (!databaseUrl || !natsUrl) {
    throw new Error('tests need DATABASE_URL and NATS_URL: run them with `npm test`, which starts Postgres and NATS');
  }
  return { databaseUrl, natsUrl };
}

/** The schemas (and so the login roles `<schema>_app`) of the six services. */
const SERVICE_SCHEMAS = ['gateway', 'catalog', 'asset', 'analysis', 'events', 'library'] as const;

export interface TestDatabase {
  /** As the server's administrator (a superuser: bypasses row-level security; for checks only). */
  url: string;
  name: string;
  /** The database as `role` (with its local password), e.g. `catalog_app` or the schema owner. */
  urlAs(role: string): string;
  drop(): Promise<void>;
}

const rolesReady = new Map<string, Promise<void>>();
let setupQueue: Promise<unknown> = Promise.resolve();

/**
 * Makes sure the schema owner and the login roles of `schemas` exist on the test server, as
 * `npm run db:setup` makes them (decision 0057); once per process and schema.
 */
export function ensureTestRoles(schemas: readonly string[], server = testInfrastructure().databaseUrl): Promise<void> {
  const key = (schema: string) => `${server} ${schema}`;
  const missing = schemas.filter((schema) => !rolesReady.has(key(schema)));
  if (missing.length > 0) {
    const credentials = testCredentials();
    // One set-up at a time in this process; the server serialises those of other processes.
    const ready = setupQueue.then(() =>
      setupDatabaseRoles(server, {
        ownerPassword: credentials.postgresPassword(SCHEMA_OWNER_ROLE),
        services: missing.map((schema) => ({ schema, password: credentials.postgresPassword(serviceRoleOf(schema)) })),
      }),
    );
    setupQueue = ready.catch(() => undefined);
    for (const schema of missing) rolesReady.set(key(schema), ready);
  }
  return Promise.all(schemas.map((schema) => rolesReady.get(key(schema))!)).then(() => undefined);
}

/** How long `drop()` lets a database's connections close by themselves, at most, and how long a count that stays put ends the wait. */
const CLOSING_WAIT_MS = 2_000;
const CLOSING_STEADY_MS = 200;

/**
 * Drops a test database. A pool the test has just ended may still be closing its connections
 * (pg-pool's `end()` resolves first): they are let close, as long as their count keeps falling,
 * for `CLOSING_WAIT_MS` at most. Otherwise `WITH (FORCE)` ends them under their pool, which emits
 * "terminating connection due to administrator command" as an unhandled error in the test's
 * process. Connections that stay (a service still running) are ended by the FORCE.
 */
async function dropDatabase(server: string, name: string): Promise<void> {
  await asAdministrator(server, async (admin) => {
    const deadline = Date.now() + CLOSING_WAIT_MS;
    let count = -1;
    let countSince = Date.now();
    for (;;) {
      const { rows } = await admin.query<{ open: number }>('select count(*)::int as open from pg_stat_activity where datname = $1', [name]);
      const open = rows[0]!.open;
      if (open === 0 || Date.now() >= deadline) break;
      if (open !== count) [count, countSince] = [open, Date.now()];
      else if (Date.now() - countSince >= CLOSING_STEADY_MS) break;
      await sleep(20);
    }
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

/** Runs `work` on a connection of its own to `server`, closed after it. */
async function asAdministrator(server: string, work: (admin: pg.Client) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}

export interface TestDatabaseOptions {
  /**
   * A Postgres cluster of the test file's own (stopped by `drop()`), for a test that holds a
   * transaction open on purpose: an open transaction holds back every feed page, which reads
   * below the cluster's `pg_snapshot_xmin`, so on the shared server it would stall other suites.
   */
  ownCluster?: boolean;
}

/**
 * Creates an empty database for one test file, where the schema owner may create schemas (the
 * services migrate as it); `drop()` removes it.
 */
export async function createTestDatabase(label = 'test', options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const cluster = options.ownCluster ? await startOwnPostgres() : null;
  const server = cluster?.url ?? testInfrastructure().databaseUrl;
  try {
    await ensureTestRoles(SERVICE_SCHEMAS, server);
    const name = `t_${label
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()
      .slice(0, 20)}_${randomBytes(5).toString('hex')}`;
    await asAdministrator(server, async (admin) => {
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.query(`GRANT CONNECT, CREATE ON DATABASE ${name} TO ${SCHEMA_OWNER_ROLE}`);
    });
    const url = new URL(server);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      name,
      urlAs(role) {
        const as = new URL(url);
        as.username = role;
        as.password = testCredentials().postgresPassword(role);
        return as.toString();
      },
      drop: cluster ? () => cluster.stop() : () => dropDatabase(server, name),
    };
  } catch (error) {
    await cluster?.stop();
    throw error;
  }
}

/** A NATS subject/stream prefix nobody else uses. */
export function uniqueNatsPrefix(label = 't'): string {
  return `${label.replace(/[^A-Za-z0-9]/g, '')}${randomBytes(4).toString('hex')}`;
}
