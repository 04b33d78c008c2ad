import { commonConfig, readConfig, sql, startServiceRuntime } from '@catalog/platform';
import { capturingLogger, createTestDatabase, eventually, serviceEnvironment, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import pg from 'pg';

/**
 * When Postgres ends the connections of a service's pool (a restart, a failover, an operator's
 * pg_terminate_backend), the service logs one short line per connection: the error's message and
 * code and the pool, never the pg client (connection parameters, password, every statement text).
 */
let database: TestDatabase;
let admin: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase('connectionlost');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

const STATEMENT_MARKER = 'statement_text_that_must_not_be_logged';

test("a terminated pool connection is logged as its error's message and code, without the client", async () => {
  const env = await serviceEnvironment(database, ['probe']);
  const config = readConfig(commonConfig('probe', 0), { ...env, NATS_PREFIX: uniqueNatsPrefix(), PROBE_HTTP_PORT: '0' });
  const password = decodeURIComponent(new URL(env.PROBE_DATABASE_URL!).password);
  expect(password.length).toBeGreaterThan(0);
  const { logger, lines } = capturingLogger('probe');
  const runtime = await startServiceRuntime({ config, schema: 'probe', migrations: {}, version: '0.0.0', logger });
  try {
    // Two connections open and idle in the pool, each with a prepared statement of its own.
    const db = runtime.database.db;
    await Promise.all([1, 2].map((n) => sql`select ${n}::int as ${sql.ref(STATEMENT_MARKER)}, pg_sleep(0.2)`.execute(db)));
    const { rowCount } = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1',
      ['probe'],
    );
    expect(rowCount).toBeGreaterThan(0);
    const lost = await eventually(async () => {
      const found = lines().filter((line) => line.msg === 'database connection lost');
      return found.length > 0 ? found : undefined;
    });
    for (const line of lost) {
      const text = JSON.stringify(line);
      expect(text.length).toBeLessThan(500);
      expect(text).not.toContain(password);
      expect(text).not.toContain(STATEMENT_MARKER);
      expect(text).not.toMatch(/connectionParameters|"host"|"port"|"user"|"database"|probe_app|stack/);
      expect(line).toMatchObject({
        level: 40,
        service: 'probe',
        pool: 'probe',
        error: { code: '57P01', message: expect.stringMatching(/terminating connection/) },
      });
    }
    // The pool makes new connections: the service goes on.
    await eventually(async () => ((await sql<{ n: number }>`select 1 as n`.execute(db)).rows[0]?.n === 1 ? true : undefined));
  } finally {
    await runtime.stop();
  }
});
