import { join } from 'node:path';
import { newId, subjectsFor, type NatsConnection, type OutboxRelay, type ServiceRuntime } from '@catalog/platform';
import { createTestDatabase, eventually, natsCredentialsOf, startOwnNatsServer, testBus, testInfrastructure, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
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

/** Writers that commit events for `ms` milliseconds; resolves with the ids of every committed event. */
async function writeFor(tenant: string, ms: number, writers = 5): Promise<string[]> {
  const deadline = Date.now() + ms;
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: writers }, async () => {
      const resource = newId();
      while (Date.now() < deadline) {
        ids.push(...(await producer.write(tenant, [entityUpdated(resource)])));
        await sleep(5);
      }
    }),
  );
  return ids;
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
    const writing = writeFor(tenant, 8_000);
    await sleep(2_000);
    await killHard(child);
    await sleep(1_500);
    child = spawnEventsProcess(env);
    await sleep(1_500);
    await killHard(child);
    child = spawnEventsProcess(env);
    const ids = await writing;
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
  const relayEnv = { DATABASE_URL: testDb.url, NATS_URL: natsUrl, NATS_PREFIX: prefix, ...(nats.user ? { NATS_USER: nats.user, NATS_PASSWORD: nats.password! } : {}) };
  const script = join(repoRoot, 'services', 'events', 'test', 'fixtures', 'relay-process.ts');
  let child = spawnTs(script, relayEnv);
  try {
    const tenant = newId();
    const writing = writeFor(tenant, 8_000);
    await sleep(2_000);
    await killHard(child);
    await sleep(1_000);
    child = spawnTs(script, relayEnv);
    await sleep(2_000);
    await killHard(child);
    child = spawnTs(script, relayEnv);
    const ids = await writing;
    await expectFeedToHoldExactly(natsUrl, prefix, tenant, ids);
  } finally {
    await killHard(child);
    await events.stop();
  }
}, 120_000);

test('killing nats-server (SIGKILL) during a stream of writes loses nothing and stores nothing twice', async () => {
  const server = await startOwnNatsServer();
  const prefix = uniqueNatsPrefix('crashnats');
  let events: ServiceRuntime<unknown> | null = null;
  let relay: OutboxRelay | null = null;
  let nc: NatsConnection | null = null;
  try {
    events = await startEvents(await eventsEnv(testDb, server.url, prefix, { FEED_CONSUMER_NAME: 'crash-nats' }));
    nc = await testBus('crash-nats', { url: server.url });
    relay = producer.startRelay(nc, subjectsFor(prefix));
    const tenant = newId();
    const writing = writeFor(tenant, 8_000);
    await sleep(2_000);
    await server.kill('SIGKILL');
    await sleep(2_000);
    await server.restart();
    const ids = await writing;
    await expectFeedToHoldExactly(server.url, prefix, tenant, ids);
  } finally {
    await relay?.stop();
    await nc?.close();
    await events?.stop();
    await server.stop();
  }
}, 120_000);
