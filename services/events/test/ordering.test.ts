import { inTenantTransaction, newId, outboxFor } from '@catalog/platform';
import { eventually, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { entityUpdated, feedRowCounts, PRODUCER, startFeedPipeline, type FeedClient, type FeedPipeline, type Producer } from './support.js';

let testDb: TestDatabase;
let producer: Producer;
let client: FeedClient;
const prefix = uniqueNatsPrefix('order');

let pipeline: FeedPipeline;

beforeAll(async () => {
  // It holds a transaction open on purpose: on a cluster of its own, so no other suite's feed waits for it.
  pipeline = await startFeedPipeline('ordering', prefix, { ownCluster: true });
  ({ testDb, producer, client } = pipeline);
});

afterAll(() => pipeline.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Written {
  id: string;
  resource: string;
  /** Its transaction began after the held transaction had written (so it has a later xid). */
  afterHeld: boolean;
}

test('20 writers for 10 s with a transaction held open: a poller sees every committed event once, none skipped, in order', async () => {
  const tenant = newId();
  const written: Written[] = [];
  const rolledBack = new Set<string>();
  const writeDeadline = Date.now() + 10_000;
  let heldWritten = false;
  let heldId = '';
  let heldCommitted = false;

  const writer = async (n: number): Promise<void> => {
    const resource = newId();
    let i = 0;
    while (Date.now() < writeDeadline) {
      i += 1;
      const afterHeld = heldWritten;
      const rollback = i % 10 === n % 10; // about one write in ten is rolled back
      let id = '';
      try {
        await inTenantTransaction(producer.database.db, tenant, async (trx) => {
          id = await outboxFor(trx, PRODUCER, { tenantId: tenant, sourceSystem: `writer-${n}` }).record(entityUpdated(resource));
          if (rollback) throw new Error('rolled back on purpose');
        });
        written.push({ id, resource, afterHeld });
      } catch (error) {
        if (!rollback) throw error;
        rolledBack.add(id);
      }
    }
  };

  // One transaction records its event early, then stays open for 3 s while the writers commit.
  const held = (async () => {
    await sleep(2_000);
    await inTenantTransaction(producer.database.db, tenant, async (trx) => {
      heldId = await outboxFor(trx, PRODUCER, { tenantId: tenant, sourceSystem: 'held' }).record(entityUpdated(newId()));
      heldWritten = true;
      await sleep(3_000);
    });
    heldCommitted = true;
  })();

  // The poller: follows the feed with its cursor, as a client does; it dedupes on id.
  const seen: string[] = [];
  let heldSeenBeforeCommit = false;
  let polling = true;
  const poller = (async () => {
    let cursor: string | null = null;
    while (polling) {
      const page = await client.page(tenant, { limit: 100, ...(cursor ? { after: cursor } : {}) });
      for (const event of page.events) {
        if (event.id === heldId && !heldCommitted) heldSeenBeforeCommit = true;
        seen.push(event.id);
      }
      if (page.nextCursor) cursor = page.nextCursor;
      if (!page.hasMore) await sleep(20);
    }
  })();

  await Promise.all([...Array.from({ length: 20 }, (_, n) => writer(n)), held]);
  const committed = new Set([...written.map((w) => w.id), heldId]);
  await eventually(async () => (committed.size === new Set(seen).size ? true : undefined), 60_000).catch(() => undefined);
  polling = false;
  await poller;

  expect(written.length).toBeGreaterThan(100);
  expect(rolledBack.size).toBeGreaterThan(0);
  // Every committed event, exactly once; nothing rolled back.
  expect(seen.length).toBe(new Set(seen).size);
  expect(new Set(seen)).toEqual(committed);
  expect(seen.some((id) => rolledBack.has(id))).toBe(false);
  // The held transaction's event appeared after it committed, ahead of every later transaction.
  expect(heldSeenBeforeCommit).toBe(false);
  const position = new Map(seen.map((id, index) => [id, index]));
  const heldAt = position.get(heldId)!;
  for (const w of written.filter((x) => x.afterHeld)) expect(position.get(w.id)!).toBeGreaterThan(heldAt);
  // Each resource's events in the order they were written.
  const byResource = new Map<string, string[]>();
  for (const w of written) byResource.set(w.resource, [...(byResource.get(w.resource) ?? []), w.id]);
  for (const ids of byResource.values()) {
    expect(ids.map((id) => position.get(id))).toEqual([...ids.map((id) => position.get(id)!)].sort((a, b) => a - b));
  }
  // No duplicate ids in the feed table.
  expect(await feedRowCounts(testDb.url, tenant)).toEqual({ total: committed.size, distinct: committed.size });
}, 120_000);
