import { jetstreamManager } from '@nats-io/jetstream';
import { DEFAULT_MAX_PAYLOAD, ensureEventsStream, newId, subjectsFor } from '@catalog/platform';
import { eventually, publishEvent, testInfrastructure, uniqueNatsPrefix } from '@catalog/testing';
import { useDatabaseAndBus } from './database-and-bus.js';
import { busEvent, eventsEnv, feedClient, startEvents } from './support.js';

/** Decision 0052: a feed page ends before its events would make the reply larger than the bus carries. */
const shared = useDatabaseAndBus('feedpagesize', 'feed-page-size-test');

test('events of 60 KB each: pages of at most max_payload, hasMore until the end, every event read once in order', async () => {
  const prefix = uniqueNatsPrefix('pagesize');
  const subjects = subjectsFor(prefix);
  await ensureEventsStream(shared.nc, subjects);
  const tenant = newId();
  const published = Array.from({ length: 40 }, () => ({ ...busEvent(tenant), data: { note: 'é'.repeat(30_000) } }));
  for (const event of published) await publishEvent(shared.nc, subjects, event);
  const events = await startEvents(await eventsEnv(shared.testDb, testInfrastructure().natsUrl, prefix));
  const client = await feedClient(testInfrastructure().natsUrl, subjects);
  try {
    // Everything is stored first, so the first page could hold all 40 (2.4 MB) by count.
    await eventually(async () => {
      const { rows } = await events.database.pool.query<{ n: number }>(
        'select count(*)::int as n from events.stream_position where last_seq >= 40',
      );
      return rows[0]!.n === 1 ? true : undefined;
    }, 30_000);
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 20; pages += 1) {
      const page = await client.page(tenant, { limit: 500, ...(after ? { after } : {}) });
      sizes.push(Buffer.byteLength(JSON.stringify(page)));
      seen.push(...page.events.map((e) => e.id));
      if (!page.hasMore) break;
      expect(page.nextCursor).not.toBeNull();
      after = page.nextCursor;
    }
    expect(seen).toEqual(published.map((e) => e.id));
    expect(sizes.length).toBeGreaterThan(2);
    for (const size of sizes) expect(size).toBeLessThan(DEFAULT_MAX_PAYLOAD);
  } finally {
    await client.close();
    await events.stop();
    const jsm = await jetstreamManager(shared.nc);
    await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
    await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
  }
});
