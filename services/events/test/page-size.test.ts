import { jetstreamManager } from '@nats-io/jetstream';
import { DEFAULT_MAX_PAYLOAD, ensureEventsStream, newId, subjectsFor } from '@catalog/platform';
import { eventually, publishEvent, testInfrastructure, uniqueNatsPrefix } from '@catalog/testing';
import { useDatabaseAndBus } from './database-and-bus.js';
import { busEvent, eventsEnv, feedClient, readAll, startEvents } from './support.js';

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
    // Everything is stored first, so the first page could hold all 40 (2.4 MB) by count. Stored is
    // not yet visible: a page shows rows below the cluster's snapshot xmin (decision 0030), which a
    // transaction of another test on the same cluster can hold back, so wait as a client would.
    await eventually(async () => ((await readAll(client, tenant)).ids.length === published.length ? true : undefined), 30_000);
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

test('a page longer than one part of its text (50 events) holds every event once, in order, as valid JSON', async () => {
  const prefix = uniqueNatsPrefix('pageparts');
  const subjects = subjectsFor(prefix);
  await ensureEventsStream(shared.nc, subjects);
  const tenant = newId();
  // Multi-byte text, so a part's bytes differ from its characters.
  const published = Array.from({ length: 120 }, (_, i) => ({ ...busEvent(tenant), data: { note: `é${i}ü` } }));
  for (const event of published) await publishEvent(shared.nc, subjects, event);
  const events = await startEvents(await eventsEnv(shared.testDb, testInfrastructure().natsUrl, prefix));
  const client = await feedClient(testInfrastructure().natsUrl, subjects);
  try {
    await eventually(async () => ((await readAll(client, tenant)).ids.length === published.length ? true : undefined), 30_000);
    const whole = await client.page(tenant, { limit: 120 });
    expect(whole.events.map((e) => e.id)).toEqual(published.map((e) => e.id));
    expect(whole.events.map((e) => e.data)).toEqual(published.map((e) => e.data));
    expect(whole.hasMore).toBe(false);
    // Two whole parts, then the rest.
    const first = await client.page(tenant, { limit: 100 });
    expect(first.events.map((e) => e.id)).toEqual(published.slice(0, 100).map((e) => e.id));
    expect(first.hasMore).toBe(true);
    const rest = await client.page(tenant, { limit: 100, after: first.nextCursor! });
    expect(rest.events.map((e) => e.id)).toEqual(published.slice(100).map((e) => e.id));
    expect(rest.hasMore).toBe(false);
  } finally {
    await client.close();
    await events.stop();
    const jsm = await jetstreamManager(shared.nc);
    await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
    await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
  }
});
