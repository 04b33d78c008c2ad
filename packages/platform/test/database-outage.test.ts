import { createDatabase, sql } from '@catalog/platform';
import { createTestDatabase, eventually, startTcpProxy, type TcpProxy, type TestDatabase } from '@catalog/testing';

/**
 * Postgres going away while a connection is checked out (a query running, a transaction open)
 * fails that work, never the process: pg emits 'error' on such a connection, and pg-pool listens
 * only to idle ones.
 */
let testDb: TestDatabase;
let proxy: TcpProxy;

beforeAll(async () => {
  testDb = await createTestDatabase('outage');
  const target = new URL(testDb.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
});
afterAll(async () => {
  await proxy.close();
  await testDb.drop();
});

test('a connection lost mid-query fails the query, and the pool serves again once Postgres is back', async () => {
  const database = createDatabase<unknown>({ url: proxy.urlFor(testDb.url), schema: 'public', role: 'postgres', poolSize: 2 });
  try {
    await sql`select 1`.execute(database.db);
    const running = sql`select pg_sleep(30)`.execute(database.db);
    const inTransaction = database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await sql`select 2`.execute(trx);
    });
    // Both settle together: neither rejection goes unhandled while the other is awaited.
    const settled = Promise.allSettled([running, inTransaction]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await proxy.cut();
    const [query, transaction] = await settled;
    expect(query).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ message: expect.stringMatching(/Connection terminated/) }),
    });
    expect(transaction.status).toBe('rejected');
    await proxy.restore();
    await eventually(async () => ((await sql<{ n: number }>`select 1 as n`.execute(database.db)).rows[0]?.n === 1 ? true : undefined));
  } finally {
    await database.close();
  }
});
