import v8 from 'node:v8';
import { CompiledQuery } from 'kysely';
import { createDatabase, sendQuery } from '@catalog/platform';
import { createTestDatabase, exposedGc, type TestDatabase } from '@catalog/testing';

let testDb: TestDatabase;

beforeAll(async () => {
  testDb = await createTestDatabase('resultsyoung');
});

afterAll(async () => {
  await testDb?.drop();
});

function oldSpaceBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
}

/** A feed page's shape: ~200 KB of text in ten rows, the statement parameterised (so named, decision 0158). */
const PAGE_SQL = `select string_agg(repeat(md5(g::text || $1::text), 11), ',') as text, g / 50 as part
                    from generate_series(0, 499) as g group by part order by part`;

/**
 * Decision 0177: node-postgres's promise form kept every result it returned alive through the
 * young generation's collections, so each was promoted and only a full collection freed it (a
 * full collection every few dozen pages in the events service). Results must die young: after
 * reading ~6 MB and two young-generation collections, the old generation has grown by a small
 * part of it (with the promise form it grew by all of it).
 *
 * Reads ~6 MB of pages with `readPage`, then runs two young-generation collections: returns how
 * much the old generation grew, and how much was read.
 */
async function promotedWhileReading(readPage: (n: number) => Promise<number>): Promise<{ promoted: number; read: number }> {
  const gc = exposedGc();
  for (let n = 0; n < 5; n += 1) await readPage(n);
  gc();
  const before = oldSpaceBytes();
  let read = 0;
  for (let n = 0; n < 30; n += 1) read += await readPage(n);
  await new Promise((resolve) => setImmediate(resolve));
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  return { promoted: oldSpaceBytes() - before, read };
}

const textBytes = (rows: Array<{ text: string }>): number => rows.reduce((bytes, row) => bytes + row.text.length, 0);

test('rows read through the dialect are freed by a young-generation collection, not promoted', async () => {
  const database = createDatabase<object>({ url: testDb.url, schema: 'public', poolSize: 1 });
  try {
    const { promoted, read } = await promotedWhileReading(async (n) =>
      textBytes((await database.db.executeQuery<{ text: string }>(CompiledQuery.raw(PAGE_SQL, [n]))).rows),
    );
    expect(read).toBeGreaterThan(5_000_000);
    expect(promoted).toBeLessThan(read * 0.25);
  } finally {
    await database.close();
  }
});

test("rows read with sendQuery (the outbox relay's reads) are freed by a young-generation collection too", async () => {
  const database = createDatabase<object>({ url: testDb.url, schema: 'public', poolSize: 1 });
  const client = await database.pool.connect();
  try {
    const { promoted, read } = await promotedWhileReading(async (n) =>
      textBytes((await sendQuery<{ text: string }>(client, { text: PAGE_SQL, values: [n] })).rows),
    );
    expect(read).toBeGreaterThan(5_000_000);
    expect(promoted).toBeLessThan(read * 0.25);
  } finally {
    client.release();
    await database.close();
  }
});
