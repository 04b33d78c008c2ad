import pg from 'pg';
import {
  createDatabase,
  inTenantTransaction,
  migrateSchema,
  newId,
  processMetrics,
  SCHEMA_OWNER_ROLE,
  sql,
  subjectsFor,
  withoutTenant,
  type Database,
  type NatsConnection,
  type OutboxRelay,
  type ServiceRuntime,
} from '@catalog/platform';
import { createTestDatabase, eventually, testBus, testInfrastructure, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { eventsMigrations } from '../src/index.js';
import { deleteExpiredFeedRows } from '../src/persistence/feed-retention.js';
import type { EventsDb } from '../src/persistence/tables.js';
import { feedPrunedRows, pruneFeed } from '../src/retention/feed-pruner.js';
import {
  entityCreated,
  eventsEnv,
  feedClient,
  feedRowCounts,
  readAll,
  startEvents,
  startProducer,
  type FeedClient,
  type Producer,
} from './support.js';

let testDb: TestDatabase;
/** The events service's role (no superuser, no owner): row-level security applies to it. */
let app: Database<EventsDb>;

/** Runs a statement as the server's administrator (bypasses row-level security: test set-up and checks only). */
async function asAdministrator<R extends pg.QueryResultRow>(text: string, values: unknown[] = [], database = testDb): Promise<R[]> {
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Stores `count` feed rows of `tenantId` received `ageDays` ago. */
async function storeRows(tenantId: string, count: number, ageDays: number): Promise<void> {
  await asAdministrator(
    `insert into events.feed (id, tenant_id, product, type, occurred_at, resource_kind, resource_id, dmrn, source_system,
                              batch_id, schema_version, data, body, received_at)
     select gen_random_uuid(), $1, 'catalog', 'entity.created', now(), 'entity', gen_random_uuid(), null, 'test',
            gen_random_uuid(), 1, '{}', '{}', now() - make_interval(days => $3)
       from generate_series(1, $2)`,
    [tenantId, count, ageDays],
  );
}

/** A tenant's rows by age: older than 35 days, 30 to 35 days, younger. */
async function rowsByAge(tenantId: string): Promise<{ expired: number; window: number; recent: number }> {
  const [row] = await asAdministrator<{ expired: number; window: number; recent: number }>(
    `select count(*) filter (where received_at < now() - interval '35 days')::int as expired,
            count(*) filter (where received_at >= now() - interval '35 days' and received_at < now() - interval '30 days')::int as window,
            count(*) filter (where received_at >= now() - interval '30 days')::int as recent
       from events.feed where tenant_id = $1`,
    [tenantId],
  );
  return row!;
}

beforeAll(async () => {
  testDb = await createTestDatabase('feedretention');
  // Migrated as the schema owner and used as the service's role, as in a deployment (decision 0057).
  await migrateSchema({ url: testDb.urlAs(SCHEMA_OWNER_ROLE), schema: 'events', role: 'events_app', migrations: eventsMigrations });
  app = createDatabase<EventsDb>({ url: testDb.urlAs('events_app'), schema: 'events', poolSize: 2 });
});

afterAll(async () => {
  await app?.close();
  await testDb?.drop();
});

describe('pruning the feed', () => {
  const a = newId();
  const b = newId();

  beforeAll(async () => {
    for (const tenant of [a, b]) {
      await storeRows(tenant, 25, 40);
      await storeRows(tenant, 4, 33);
      await storeRows(tenant, 6, 1);
    }
  });

  test('code bound to a tenant deletes no feed rows, of another tenant nor its own, even saying it prunes', async () => {
    const deleted = await inTenantTransaction(app.db, a, async (trx) => {
      await sql`select set_config('app.feed_pruning', 'on', true)`.execute(trx);
      const mine = await sql`delete from events.feed where tenant_id = ${a}`.execute(trx);
      const theirs = await sql`delete from events.feed where tenant_id = ${b}`.execute(trx);
      return Number(mine.numAffectedRows) + Number(theirs.numAffectedRows);
    });
    expect(deleted).toBe(0);
    expect(await rowsByAge(a)).toEqual({ expired: 25, window: 4, recent: 6 });
    expect(await rowsByAge(b)).toEqual({ expired: 25, window: 4, recent: 6 });
  });

  test('outside any tenant, a transaction that does not say it prunes deletes nothing', async () => {
    const unflagged = await withoutTenant(() => sql`delete from events.feed`.execute(app.db));
    expect(Number(unflagged.numAffectedRows)).toBe(0);
    expect(await rowsByAge(a)).toEqual({ expired: 25, window: 4, recent: 6 });
  });

  test('rows older than the retention are deleted in bounded batches, of every tenant; younger ones stay', async () => {
    expect(await pruneFeed(app.db, { retentionDays: 35, batchSize: 10 })).toEqual({ removed: 50, batches: 6 });
    expect(await rowsByAge(a)).toEqual({ expired: 0, window: 4, recent: 6 });
    expect(await rowsByAge(b)).toEqual({ expired: 0, window: 4, recent: 6 });
    expect(await pruneFeed(app.db, { retentionDays: 35, batchSize: 10 })).toEqual({ removed: 0, batches: 1 });
  });

  test('asked for a shorter retention, the database still keeps the 30-day replay window', async () => {
    expect(await deleteExpiredFeedRows(app.db, 1, 1000)).toBe(8);
    expect(await rowsByAge(a)).toEqual({ expired: 0, window: 0, recent: 6 });
    expect(await rowsByAge(b)).toEqual({ expired: 0, window: 0, recent: 6 });
  });
});

describe("the pruner's policies and a tenant's page", () => {
  // Permissive policies are ORed with the tenant's own. With the pruner's rule written into its
  // policies (0005), a prepared types-filtered page got a generic plan that ORed the received_at
  // index into a bitmap scan of every row of the tenant's type: 440 ms at 10 M events, not 1.3 ms
  // (bench/events). Small tables do not make the planner choose it, so this holds the cause: the
  // rule sits behind a function (0006), whose body the planner neither reads nor indexes.
  test("the pruner's policies give the planner no column condition to OR into a tenant's page", async () => {
    const policies = await asAdministrator<{ policyname: string; qual: string }>(
      `select policyname, qual from pg_policies where schemaname = 'events' and tablename = 'feed' and policyname like 'feed_pruner_%'`,
    );
    expect(policies.map((p) => p.policyname).sort()).toEqual(['feed_pruner_delete', 'feed_pruner_read']);
    for (const { qual } of policies) expect(qual).toBe('events.feed_row_prunable(received_at)');
  });
});

describe('the events service', () => {
  const prefix = uniqueNatsPrefix('prune');
  const subjects = subjectsFor(prefix);
  let serviceDb: TestDatabase;
  let producer: Producer;
  let events: ServiceRuntime<EventsDb>;
  let relay: OutboxRelay;
  let client: FeedClient;
  let nc: NatsConnection;

  beforeAll(async () => {
    const { natsUrl } = testInfrastructure();
    serviceDb = await createTestDatabase('feedpruner');
    producer = await startProducer(serviceDb.url);
    events = await startEvents(await eventsEnv(serviceDb, natsUrl, prefix, { FEED_PRUNE_INTERVAL_MS: '200', FEED_PRUNE_BATCH_SIZE: '2' }));
    nc = await testBus('feed-prune-test', { url: natsUrl });
    relay = producer.startRelay(nc, subjects);
    client = await feedClient(natsUrl, subjects);
  });

  afterAll(async () => {
    await client?.close();
    await relay?.stop();
    await nc?.drain();
    await events?.stop();
    await producer?.close();
    await serviceDb?.drop();
  });

  test('prunes expired events on its own; a cursor whose events were pruned still reads what follows it', async () => {
    const tenant = newId();
    const other = newId();
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(...(await producer.write(tenant, [entityCreated(newId())])));
    const otherIds = await producer.write(other, [entityCreated(newId()), entityCreated(newId())]);
    await eventually(async () => ((await readAll(client, tenant)).ids.length === 6 ? true : undefined), 30_000);
    await eventually(async () => ((await readAll(client, other)).ids.length === 2 ? true : undefined), 30_000);
    const firstPage = await client.page(tenant, { limit: 3 });
    expect(firstPage.events.map((e) => e.id)).toEqual(ids.slice(0, 3));
    const cursor = firstPage.nextCursor!;
    const prunedBefore = feedPrunedRows(processMetrics).value();

    // The first three events (the cursor's own among them) and one of the other tenant's age past the retention.
    await asAdministrator(
      `update events.feed set received_at = now() - interval '36 days' where id = any($1::uuid[])`,
      [[...ids.slice(0, 3), otherIds[0]]],
      serviceDb,
    );
    await eventually(async () => ((await feedRowCounts(serviceDb.url, tenant)).total === 3 ? true : undefined), 30_000);
    await eventually(async () => ((await feedRowCounts(serviceDb.url, other)).total === 1 ? true : undefined), 30_000);

    expect((await readAll(client, tenant, cursor)).ids).toEqual(ids.slice(3));
    expect((await readAll(client, tenant)).ids).toEqual(ids.slice(3));
    expect((await readAll(client, other)).ids).toEqual(otherIds.slice(1));
    expect(feedPrunedRows(processMetrics).value() - prunedBefore).toBe(4);
  }, 150_000);
});
