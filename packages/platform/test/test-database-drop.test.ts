import { createTestDatabase } from '@catalog/testing';
import pg from 'pg';

/**
 * The test databases' `drop()` (packages/testing), which every test file calls after ending its
 * pools. pg-pool's `end()` resolves before its connections have closed; a drop that ended them
 * by force then made the pool emit "terminating connection due to administrator command" with
 * no listener left, and jest failed the whole file (CI, test/sdk/feed.test.ts, 2026-11-29).
 */
test('connections still closing when the drop starts close by themselves: none is ended under its client', async () => {
  const database = await createTestDatabase('dropafterend');
  const clients = [0, 1, 2].map(() => new pg.Client({ connectionString: database.url }));
  const errors: string[] = [];
  for (const client of clients) {
    client.on('error', (error) => errors.push(error.message));
    await client.connect();
  }
  // As a pool's connections after its end() resolved: each closes a moment later, one after another.
  const closing = clients.map((client, i) => new Promise((resolve) => setTimeout(resolve, 50 + 100 * i)).then(() => client.end()));
  await database.drop();
  await Promise.all(closing);
  expect(errors).toEqual([]);
});

test('a connection that stays open does not hold the drop back: it is ended', async () => {
  const database = await createTestDatabase('dropwithopen');
  const client = new pg.Client({ connectionString: database.url });
  const ended = new Promise<Error>((resolve) => client.on('error', resolve));
  await client.connect();
  await database.drop();
  expect((await ended).message).toMatch(/terminating connection/);
  await client.end().catch(() => undefined);
});
