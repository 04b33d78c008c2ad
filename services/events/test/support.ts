import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntityField } from '@catalog/contracts';
import {
  callRpc,
  createDatabase,
  createOutboxRelaySupportV1,
  createOutboxTableV1,
  inTenantTransaction,
  migrateSchema,
  outboxFor,
  readConfig,
  sql,
  startOutboxRelay,
  subjectsFor,
  type BusEvent,
  type Database,
  type Migrations,
  type NatsConnection,
  type OutboxEvent,
  type OutboxRelay,
  type ServiceRuntime,
  type Subjects,
} from '@catalog/platform';
import {
  createTestDatabase,
  serviceEnvironment,
  testBus,
  testBusEvent,
  testCallContext,
  testInfrastructure,
  testLogger,
  type TestDatabase,
  type TestDatabaseOptions,
} from '@catalog/testing';
import { eventsConfig, startEventsService } from '../src/index.js';
import type { FeedPage } from '../src/domain/feed-page.js';
import type { EventsDb } from '../src/persistence/tables.js';

export const PRODUCER = 'producer';
const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..', '..');

/** A stand-in for a service that records events: a schema with an outbox, and its relay. */
export interface Producer {
  database: Database<unknown>;
  /** Records events in one transaction; returns their ids. */
  write(tenantId: string, events: OutboxEvent[], sourceSystem?: string): Promise<string[]>;
  startRelay(nc: NatsConnection, subjects: Subjects): OutboxRelay;
  unpublished(): Promise<number>;
  close(): Promise<void>;
}

const producerMigrations: Migrations = {
  '0001_outbox': { up: (db) => createOutboxTableV1(db, PRODUCER) },
  '0002_outbox_relay': { up: (db) => createOutboxRelaySupportV1(db, PRODUCER) },
};

export async function startProducer(databaseUrl: string): Promise<Producer> {
  await migrateSchema({ url: databaseUrl, schema: PRODUCER, role: `${PRODUCER}_app`, migrations: producerMigrations });
  const database = createDatabase<unknown>({ url: databaseUrl, schema: PRODUCER, role: `${PRODUCER}_app`, poolSize: 30 });
  return {
    database,
    async write(tenantId, events, sourceSystem = 'test') {
      return inTenantTransaction(database.db, tenantId, (trx) => outboxFor(trx, PRODUCER, { tenantId, sourceSystem }).recordAll(events));
    },
    startRelay(nc, subjects) {
      return startOutboxRelay({
        schema: PRODUCER,
        connectionString: databaseUrl,
        role: `${PRODUCER}_app`,
        nc,
        subjects,
        logger: testLogger('relay'),
        retryMaxMs: 500,
        leaseRetryMs: 200,
        publishTimeoutMs: 2000,
      });
    },
    async unpublished() {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from producer.outbox where published_at is null`.execute(
        database.db,
      );
      return rows[0]!.n;
    },
    close: () => database.close(),
  };
}

/** The whole pipeline a feed test drives: producer outbox → relay → stream → events service → feed. */
export interface FeedPipeline {
  testDb: TestDatabase;
  producer: Producer;
  events: ServiceRuntime<EventsDb>;
  nc: NatsConnection;
  relay: OutboxRelay;
  client: FeedClient;
  stop(): Promise<void>;
}

export async function startFeedPipeline(label: string, prefix: string, options: TestDatabaseOptions = {}): Promise<FeedPipeline> {
  const { natsUrl } = testInfrastructure();
  const subjects = subjectsFor(prefix);
  const testDb = await createTestDatabase(label, options);
  const producer = await startProducer(testDb.url);
  const events = await startEvents(await eventsEnv(testDb, natsUrl, prefix));
  const nc = await testBus(`${label}-test`, { url: natsUrl });
  const relay = producer.startRelay(nc, subjects);
  const client = await feedClient(natsUrl, subjects);
  return {
    testDb,
    producer,
    events,
    nc,
    relay,
    client,
    async stop() {
      await client.close();
      await relay.stop();
      await nc.drain();
      await events.stop();
      await producer.close();
      await testDb.drop();
    },
  };
}

/** Rows of a tenant in `events.feed`, and how many distinct event ids they hold (read as the owner). */
export async function feedRowCounts(databaseUrl: string, tenantId: string): Promise<{ total: number; distinct: number }> {
  const owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  try {
    const { rows } = await owner.query<{ total: number; distinct: number }>(
      'select count(*)::int as total, count(distinct id)::int as distinct from events.feed where tenant_id = $1',
      [tenantId],
    );
    return rows[0]!;
  } finally {
    await owner.end();
  }
}

/** A well-formed `entity.created` event as it travels on the stream. */
export function busEvent(tenantId: string): BusEvent {
  return testBusEvent({ tenantId, type: 'entity.created', resourceKind: 'entity', data: { entityType: 'song' } });
}

export function entityCreated(resourceId: string, dmrn: string | null = null): OutboxEvent {
  return { type: 'entity.created', resourceId, dmrn, data: { entityType: 'song' } };
}

export function entityUpdated(resourceId: string, changedFields: EntityField[] = ['title']): OutboxEvent {
  return { type: 'entity.updated', resourceId, dmrn: null, data: { changedFields } };
}

/** An event of the library product, for a tenant of the catalog feed it must never reach. */
export function trackUpdated(resourceId: string): OutboxEvent {
  return { type: 'track.updated', resourceId, dmrn: null, data: { changedFields: ['title'] } };
}

/** The events service's environment on `database` (its own role and NATS user) and the NATS server of `natsUrl`. */
export async function eventsEnv(
  database: TestDatabase,
  natsUrl: string,
  prefix: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  return {
    ...(await serviceEnvironment(database, ['events'])),
    NATS_URL: natsUrl,
    NATS_PREFIX: prefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HTTP_HOST: '127.0.0.1',
    EVENTS_HTTP_PORT: '0',
    FEED_CURSOR_SECRET: 'test-feed-cursor-secret-0123456789abcdef',
    FEED_WRITER_LEASE_RETRY_MS: '200',
    FEED_CONSUMER_ACK_WAIT_MS: '2000',
    DB_POOL_SIZE: '5',
    ...extra,
  };
}

export async function startEvents(env: Record<string, string>): Promise<ServiceRuntime<EventsDb>> {
  return startEventsService(readConfig(eventsConfig, env), { logger: testLogger('events') });
}

/** The events service as a separate process, so a test can kill it without any clean-up. */
export function spawnEventsProcess(env: Record<string, string>): ChildProcess {
  return spawnTs(join(repoRoot, 'services', 'events', 'src', 'main.ts'), env);
}

export function spawnTs(script: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
    cwd: repoRoot,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: process.env.TEST_LOG_LEVEL ? ['ignore', 'inherit', 'inherit'] : 'ignore',
  });
  return child;
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export interface FeedClient {
  page(tenantId: string, query?: Record<string, unknown>): Promise<FeedPage>;
  /** The error code of a call that must fail. */
  failure(tenantId: string, query: Record<string, unknown>): Promise<{ status: number; code: string }>;
  close(): Promise<void>;
}

/** Calls `listEvents` over NATS as the gateway would (the query already checked by the route schema). */
export async function feedClient(natsUrl: string, subjects: Subjects): Promise<FeedClient> {
  const nc = await testBus('feed-client', { url: natsUrl });
  const call = (tenantId: string, query: Record<string, unknown>) =>
    callRpc(
      { nc, subjects, callContext: testCallContext(), timeoutMs: 10_000 },
      'events',
      'listEvents',
      { params: {}, query, body: null },
      {
        tenantId,
        keyId: null,
        sourceSystem: 'test',
        requestId: 'test',
      },
    );
  return {
    async page(tenantId, query = {}) {
      const reply = await call(tenantId, query);
      if (!reply.ok) throw new Error(`listEvents failed: ${JSON.stringify(reply.error)}`);
      return reply.body as FeedPage;
    },
    async failure(tenantId, query) {
      const reply = await call(tenantId, query);
      if (reply.ok) throw new Error('listEvents answered 200, expected an error');
      return { status: reply.error.status, code: reply.error.code };
    },
    close: () => nc.drain(),
  };
}

/** Reads a tenant's feed from `cursor` to its current end; returns the events and the last cursor. */
export async function readAll(
  client: FeedClient,
  tenantId: string,
  cursor: string | null = null,
  query: Record<string, unknown> = {},
): Promise<{ ids: string[]; types: string[]; cursor: string | null; events: FeedPage['events'] }> {
  const events: FeedPage['events'] = [];
  for (;;) {
    const page = await client.page(tenantId, { limit: 500, ...query, ...(cursor ? { after: cursor } : {}) });
    events.push(...page.events);
    if (page.nextCursor) cursor = page.nextCursor;
    if (!page.hasMore) break;
  }
  return { ids: events.map((e) => e.id), types: events.map((e) => e.type), cursor, events };
}

export { subjectsFor };
