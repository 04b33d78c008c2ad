import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import {
  createDatabase,
  createMetricsRegistry,
  ensureEventsStream,
  migrateSchema,
  newId,
  platformCounter,
  processMetrics,
  subjectsFor,
  type BusEvent,
  type ServiceRuntime,
  type Subjects,
} from '@catalog/platform';
import {
  eventually,
  publishEvent,
  readDeadLetters,
  startTcpProxy,
  testInfrastructure,
  testLogger,
  uniqueNatsPrefix,
} from '@catalog/testing';
import { eventsMigrations } from '../src/index.js';
import { startFeedWriter } from '../src/consumers/feed-writer.js';
import { MAX_FEED_EVENT_BYTES } from '../src/domain/stream-entry.js';
import type { EventsDb } from '../src/persistence/tables.js';
import { useDatabaseAndBus } from './database-and-bus.js';
import { busEvent, eventsEnv, feedClient, readAll, startEvents, type FeedClient } from './support.js';

/**
 * Decision 0053 for the feed writer: one bad message never halts the feed. Malformed messages are
 * parked at once, events Postgres refuses are isolated from their batch and parked after their
 * attempts, every other event is stored in stream order; Postgres away parks nothing.
 */
const shared = useDatabaseAndBus('feeddlq', 'feed-dlq-test');

async function dropStreams(subjects: Subjects): Promise<void> {
  const jsm = await jetstreamManager(shared.nc);
  await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
  await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
}

/** The ids stored in the feed for a tenant, in feed order, read as the owner. */
async function storedIds(tenantId: string): Promise<string[]> {
  const owner = new pg.Client({ connectionString: shared.testDb.url });
  await owner.connect();
  try {
    const { rows } = await owner.query<{ id: string }>('select id from events.feed where tenant_id = $1 order by tx_id, id', [tenantId]);
    return rows.map((r) => r.id);
  } finally {
    await owner.end();
  }
}

test("bad messages between good events: every tenant's feed keeps flowing, the bad ones are parked with their reason, the counter moves", async () => {
  const prefix = uniqueNatsPrefix('feeddlq');
  const subjects = subjectsFor(prefix);
  const consumer = 'feed-dlq';
  const parkedBefore = (reason: string) => platformCounter(processMetrics, 'deadLetters').value({ consumer, reason });
  const counted = { rejected: parkedBefore('rejected'), malformed: parkedBefore('malformed'), tooLarge: parkedBefore('too_large') };
  const [a, b] = [newId(), newId()];
  const good: BusEvent[] = [busEvent(a), busEvent(b), busEvent(a), busEvent(b), busEvent(a), busEvent(b)];
  const bad = {
    garbage: { type: 'entity.created', bytes: new TextEncoder().encode('{"id": "half an event"') },
    tenantNotUuid: { type: 'entity.created', bytes: new TextEncoder().encode(JSON.stringify({ ...busEvent(a), tenantId: 'tenant-1' })) },
    nul: { ...busEvent(b), sourceSystem: 'playout\u0000studio' },
    outOfRange: { ...busEvent(a), schemaVersion: 2 ** 40 },
    huge: { ...busEvent(b), data: { note: 'x'.repeat(MAX_FEED_EVENT_BYTES) } },
  };
  // All published before the writer starts: the first batch holds them all, good and bad.
  await ensureEventsStream(shared.nc, subjects);
  const seq: Record<string, number> = {};
  seq.good0 = await publishEvent(shared.nc, subjects, good[0]!);
  seq.garbage = await publishEvent(shared.nc, subjects, bad.garbage);
  seq.good1 = await publishEvent(shared.nc, subjects, good[1]!);
  seq.nul = await publishEvent(shared.nc, subjects, bad.nul);
  seq.good2 = await publishEvent(shared.nc, subjects, good[2]!);
  seq.tenantNotUuid = await publishEvent(shared.nc, subjects, bad.tenantNotUuid);
  seq.outOfRange = await publishEvent(shared.nc, subjects, bad.outOfRange);
  seq.good3 = await publishEvent(shared.nc, subjects, good[3]!);
  seq.huge = await publishEvent(shared.nc, subjects, bad.huge);
  seq.good4 = await publishEvent(shared.nc, subjects, good[4]!);

  let events: ServiceRuntime<EventsDb> | null = null;
  let client: FeedClient | null = null;
  try {
    events = await startEvents(
      await eventsEnv(shared.testDb, testInfrastructure().natsUrl, prefix, { FEED_CONSUMER_NAME: consumer, FEED_WRITER_MAX_ATTEMPTS: '2' }),
    );
    client = await feedClient(testInfrastructure().natsUrl, subjects);
    const feedOf = (tenant: string) =>
      good
        .slice(0, 5)
        .filter((e) => e.tenantId === tenant)
        .map((e) => e.id);
    for (const tenant of [a, b]) {
      const read = await eventually(async () => {
        const all = await readAll(client!, tenant);
        return all.ids.length === feedOf(tenant).length ? all : undefined;
      }, 30_000);
      expect(read.ids).toEqual(feedOf(tenant));
    }
    // And it goes on: a later event is stored too.
    await publishEvent(shared.nc, subjects, good[5]!);
    await eventually(async () => ((await readAll(client!, b)).ids.includes(good[5]!.id) ? true : undefined), 30_000);

    const parked = await readDeadLetters(shared.nc, subjects);
    const bySeq = new Map(parked.map((p) => [p.streamSeq, p]));
    expect([...bySeq.keys()].sort((x, y) => x - y)).toEqual([seq.garbage, seq.nul, seq.tenantNotUuid, seq.outOfRange, seq.huge]);
    for (const p of parked) expect(p).toMatchObject({ consumer, subject: subjects.events('catalog', 'entity.created') });
    expect(bySeq.get(seq.garbage!)).toMatchObject({ reason: 'malformed: not an event of the events stream', attempts: 0 });
    expect(bySeq.get(seq.tenantNotUuid!)).toMatchObject({ reason: 'malformed: not an event of the events stream', attempts: 0 });
    expect(bySeq.get(seq.nul!)).toMatchObject({ reason: expect.stringMatching(/^rejected: 22P05: /), attempts: 2 });
    expect(bySeq.get(seq.outOfRange!)).toMatchObject({ reason: expect.stringMatching(/^rejected: 22003: /), attempts: 2 });
    expect(bySeq.get(seq.huge!)!.reason).toMatch(/^too_large: /);
    expect(JSON.parse(new TextDecoder().decode(bySeq.get(seq.nul!)!.data)).id).toBe(bad.nul.id);

    expect(parkedBefore('rejected') - counted.rejected).toBe(2);
    expect(parkedBefore('malformed') - counted.malformed).toBe(2);
    expect(parkedBefore('too_large') - counted.tooLarge).toBe(1);
    const metrics = await fetch(`${events.http!.url}/metrics`).then((r) => r.text());
    expect(metrics).toContain(`catalog_dead_letters_total{consumer="${consumer}",reason="rejected"}`);
  } finally {
    await client?.close();
    await events?.stop();
    await dropStreams(subjects);
  }
});

test('Postgres unavailable for a while parks nothing, even beside a poison event: the feed waits, then goes on in order', async () => {
  const prefix = uniqueNatsPrefix('feedaway');
  const subjects = subjectsFor(prefix);
  const consumer = 'feed-away';
  await migrateSchema({ url: shared.testDb.url, schema: 'events', role: 'events_app', migrations: eventsMigrations });
  await ensureEventsStream(shared.nc, subjects);
  const target = new URL(shared.testDb.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  // The writer's pool goes through the proxy; its lease connection does not, so it stays the writer.
  const database = createDatabase<EventsDb>({ url: proxy.urlFor(shared.testDb.url), schema: 'events', role: 'events_app', poolSize: 2 });
  database.pool.on('error', () => undefined);
  const metrics = createMetricsRegistry();
  const writer = startFeedWriter({
    db: database.db,
    nc: shared.nc,
    subjects,
    logger: testLogger('feed-writer'),
    connectionString: shared.testDb.url,
    role: 'events_app',
    metrics,
    config: {
      durable: consumer,
      maxBatch: 1000,
      maxAckPending: 5000,
      ackWaitMs: 30_000,
      leaseRetryMs: 200,
      maxAttempts: 3,
      retry: { minMs: 10, maxMs: 100 },
    },
  });
  const tenant = newId();
  try {
    const before = busEvent(tenant);
    await publishEvent(shared.nc, subjects, before);
    await eventually(async () => ((await storedIds(tenant)).length === 1 ? true : undefined), 20_000);

    await proxy.cut();
    const during = [busEvent(tenant), busEvent(tenant)];
    const poison = { ...busEvent(tenant), sourceSystem: 'nul\u0000here' };
    await publishEvent(shared.nc, subjects, during[0]!);
    const poisonSeq = await publishEvent(shared.nc, subjects, poison);
    await publishEvent(shared.nc, subjects, during[1]!);
    const retries = platformCounter(metrics, 'retries');
    // Many more failed attempts than maxAttempts (3) while Postgres is away; nothing parked.
    await eventually(async () => (retries.value({ consumer, kind: 'transient' }) >= 10 ? true : undefined), 20_000);
    expect(await readDeadLetters(shared.nc, subjects)).toEqual([]);
    expect(retries.value({ consumer, kind: 'rejected' })).toBe(0);

    await proxy.restore();
    await eventually(async () => ((await storedIds(tenant)).length === 3 ? true : undefined), 20_000);
    expect(await storedIds(tenant)).toEqual([before.id, during[0]!.id, during[1]!.id]);
    const parked = await readDeadLetters(shared.nc, subjects);
    expect(parked.map((p) => [p.streamSeq, p.reason.split(':')[0]])).toEqual([[poisonSeq, 'rejected']]);
    expect(platformCounter(metrics, 'deadLetters').value({ consumer, reason: 'rejected' })).toBe(1);
  } finally {
    await writer.stop();
    await database.close();
    await proxy.close();
    await dropStreams(subjects);
  }
});
