import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { newId, subjectsFor, type NatsConnection, type OutboxRelay, type ServiceRuntime } from '@catalog/platform';
import {
  createTestDatabase,
  eventually,
  natsCredentialsOf,
  startOwnNatsServer,
  testBus,
  testInfrastructure,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';
import {
  entityUpdated,
  eventsEnv,
  feedClient,
  feedRowCounts,
  killHard,
  readAll,
  repoRoot,
  spawnEventsProcess,
  spawnTs,
  startEvents,
  startProducer,
  type Producer,
} from './support.js';
import type { EventsDb } from '../src/persistence/tables.js';

let testDb: TestDatabase;
let producer: Producer;

beforeAll(async () => {
  testDb = await createTestDatabase('crash');
  producer = await startProducer(testDb.url);
});

afterAll(async () => {
  await producer.close();
  await testDb.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writers started by `startWriting`. */
interface Writing {
  stopAfter(ms: number): Promise<string[]>;
}

/** The writings a test started: stopped after it, if it failed before it stopped them itself. */
const writings: Writing[] = [];
afterEach(async () => {
  for (const writing of writings.splice(0)) await writing.stopAfter(0).catch(() => undefined);
});

/**
 * Writers that commit events until `stopAfter(ms)` (or for a minute at most): the writes keep
 * coming however long a kill point waits for events in flight (a relay or feed page held back by
 * another test's transaction, decision 0030, can make that wait long); resolves with the ids of
 * every committed event.
 */
function startWriting(tenant: string, writers = 5): Writing {
  let deadline = Date.now() + 60_000;
  const ids: string[] = [];
  const writing = Promise.all(
    Array.from({ length: writers }, async () => {
      const resource = newId();
      while (Date.now() < deadline) {
        ids.push(...(await producer.write(tenant, [entityUpdated(resource)])));
        await sleep(5);
      }
    }),
  );
  writing.catch(() => undefined);
  const handle: Writing = {
    async stopAfter(ms: number) {
      deadline = Math.min(deadline, Date.now() + ms);
      await writing;
      return ids;
    },
  };
  writings.push(handle);
  return handle;
}

/** Waits until the tenant's feed holds every id, then checks there is no other and no duplicate. */
async function expectFeedToHoldExactly(natsUrl: string, prefix: string, tenant: string, ids: string[]): Promise<void> {
  const client = await feedClient(natsUrl, subjectsFor(prefix));
  try {
    const all = await eventually(async () => {
      const read = await readAll(client, tenant);
      return read.ids.length >= ids.length ? read : undefined;
    }, 60_000);
    expect(all.ids.length).toBe(new Set(all.ids).size);
    expect(new Set(all.ids)).toEqual(new Set(ids));
  } finally {
    await client.close();
  }
  expect(await feedRowCounts(testDb.url, tenant)).toEqual({ total: ids.length, distinct: ids.length });
}

/**
 * A kill point: waits until events are in flight by `measure` (a count taken right then), then
 * kills at once, and returns the count. A crash test whose kill lands while nothing is in flight
 * would pass without testing any recovery.
 */
async function killWhileInFlight(measure: () => Promise<number>, kill: () => Promise<void>): Promise<number> {
  const inFlight = await eventually(
    async () => {
      const n = await measure();
      return n > 0 ? n : undefined;
    },
    20_000,
    2,
  );
  await kill();
  return inFlight;
}

/** Events in the stream that the feed writer has not stored yet: the stream's last sequence less the writer's position. */
function feedLag(nc: NatsConnection, prefix: string, consumer: string): () => Promise<number> {
  return async () => {
    const info = await (await jetstreamManager(nc)).streams.info(subjectsFor(prefix).eventsStream);
    const owner = new pg.Client({ connectionString: testDb.url });
    await owner.connect();
    try {
      const { rows } = await owner.query<{ last_seq: string }>('select last_seq::text from events.stream_position where consumer = $1', [
        consumer,
      ]);
      return info.state.last_seq - Number(rows[0]?.last_seq ?? 0);
    } finally {
      await owner.end();
    }
  };
}

/** Connections of these applications in a transaction that began more than a second ago. */
async function longTransactionsOf(applications: string[]): Promise<number> {
  const owner = new pg.Client({ connectionString: testDb.url });
  await owner.connect();
  try {
    const { rows } = await owner.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name = any($1)
          and xact_start < now() - interval '1 second'`,
      [applications],
    );
    return rows[0]!.n;
  } finally {
    await owner.end();
  }
}

async function waitForFeed(natsUrl: string, prefix: string): Promise<void> {
  const client = await feedClient(natsUrl, subjectsFor(prefix));
  try {
    await eventually(() => client.page(newId(), {}).then(() => true), 30_000, 200);
  } finally {
    await client.close();
  }
}

test('killing the events service (SIGKILL) during a stream of writes loses nothing and stores nothing twice', async () => {
  const { natsUrl } = testInfrastructure();
  const prefix = uniqueNatsPrefix('crashevents');
  const env = await eventsEnv(testDb, natsUrl, prefix, { FEED_CONSUMER_NAME: 'crash-events' });
  const nc = await testBus('crash-events', { url: natsUrl });
  const relay = producer.startRelay(nc, subjectsFor(prefix));
  let child = spawnEventsProcess(env);
  try {
    await waitForFeed(natsUrl, prefix);
    const tenant = newId();
    const writing = startWriting(tenant);
    const lag = feedLag(nc, prefix, 'crash-events');
    await sleep(2_000);
    // eslint-disable-next-line no-restricted-syntax -- writes flowing for a while before the kill; killWhileInFlight itself waits for rows in flight
    expect(await killWhileInFlight(lag, () => killHard(child))).toBeGreaterThan(0);
    await sleep(1_500);
    child = spawnEventsProcess(env);
    await sleep(1_500);
    const restarted = child;
    expect(await killWhileInFlight(lag, () => killHard(restarted))).toBeGreaterThan(0);
    child = spawnEventsProcess(env);
    const ids = await writing.stopAfter(1_500);
    await expectFeedToHoldExactly(natsUrl, prefix, tenant, ids);
  } finally {
    await killHard(child);
    await relay.stop();
    await nc.drain();
  }
}, 120_000);

test('killing the relay (SIGKILL) during a stream of writes loses nothing and stores nothing twice', async () => {
  const { natsUrl } = testInfrastructure();
  const prefix = uniqueNatsPrefix('crashrelay');
  const events = await startEvents(await eventsEnv(testDb, natsUrl, prefix, { FEED_CONSUMER_NAME: 'crash-relay' }));
  const nats = natsCredentialsOf('admin');
  const relayEnv = {
    DATABASE_URL: testDb.url,
    NATS_URL: natsUrl,
    NATS_PREFIX: prefix,
    ...(nats.user ? { NATS_USER: nats.user, NATS_PASSWORD: nats.password! } : {}),
  };
  const script = join(repoRoot, 'services', 'events', 'test', 'fixtures', 'relay-process.ts');
  let child = spawnTs(script, relayEnv);
  try {
    const tenant = newId();
    const writing = startWriting(tenant);
    await sleep(2_000);
    // Committed outbox rows the relay has not published: in flight when it dies.
    const first = child;
    expect(
      await killWhileInFlight(
        () => producer.unpublished(),
        () => killHard(first),
      ),
    ).toBeGreaterThan(0);
    await sleep(1_000);
    child = spawnTs(script, relayEnv);
    await sleep(2_000);
    const second = child;
    expect(
      await killWhileInFlight(
        () => producer.unpublished(),
        () => killHard(second),
      ),
    ).toBeGreaterThan(0);
    child = spawnTs(script, relayEnv);
    const ids = await writing.stopAfter(1_500);
    await expectFeedToHoldExactly(natsUrl, prefix, tenant, ids);
  } finally {
    await killHard(child);
    await events.stop();
  }
}, 120_000);

test('killing nats-server (SIGKILL) during a stream of writes loses nothing and stores nothing twice', async () => {
  const server = await startOwnNatsServer();
  const prefix = uniqueNatsPrefix('crashnats');
  let events: ServiceRuntime<EventsDb> | null = null;
  let relay: OutboxRelay | null = null;
  let nc: NatsConnection | null = null;
  try {
    events = await startEvents(await eventsEnv(testDb, server.url, prefix, { FEED_CONSUMER_NAME: 'crash-nats' }));
    nc = await testBus('crash-nats', { url: server.url });
    relay = producer.startRelay(nc, subjectsFor(prefix));
    const tenant = newId();
    const writing = startWriting(tenant);
    const lag = feedLag(nc!, prefix, 'crash-nats');
    await sleep(2_000);
    // Rows not yet published and events not yet stored in the feed: both in flight when NATS dies.
    // eslint-disable-next-line no-restricted-syntax -- writes flowing for a while before the kill; killWhileInFlight itself waits for rows in flight
    expect(
      await killWhileInFlight(
        async () => Math.min(await producer.unpublished(), await lag()),
        () => server.kill('SIGKILL'),
      ),
    ).toBeGreaterThan(0);
    // While NATS is away the events service (feed writer, its lease) keeps no transaction open
    // across the wait: none of its connections is in a transaction that began over a second ago.
    for (let i = 0; i < 10; i += 1) {
      expect(await longTransactionsOf(['events', 'lease:events-feed-writer'])).toBe(0);
      await sleep(200);
    }
    await server.restart();
    const ids = await writing.stopAfter(1_500);
    await expectFeedToHoldExactly(server.url, prefix, tenant, ids);
  } finally {
    await relay?.stop();
    await nc?.close();
    await events?.stop();
    await server.stop();
  }
}, 120_000);
