import { jetstream } from '@nats-io/jetstream';
import { FeedEvent } from '@catalog/contracts';
import pg from 'pg';
import { encodeBusEvent, newId, sql, subjectsFor, type NatsConnection } from '@catalog/platform';
import { eventually, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { feedCursors } from '../src/domain/feed-cursor.js';
import {
  busEvent,
  entityCreated,
  entityUpdated,
  readAll,
  startFeedPipeline,
  trackUpdated,
  type FeedPipeline,
  type FeedClient,
  type Producer,
} from './support.js';

let testDb: TestDatabase;
let producer: Producer;
let nc: NatsConnection;
let client: FeedClient;
const prefix = uniqueNatsPrefix('feed');
const subjects = subjectsFor(prefix);

let pipeline: FeedPipeline;

beforeAll(async () => {
  pipeline = await startFeedPipeline('feed', prefix);
  ({ testDb, producer, nc, client } = pipeline);
});

afterAll(() => pipeline.stop());

async function ownerQuery<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
  const c = new pg.Client({ connectionString: testDb.url });
  await c.connect();
  try {
    return await c.query<R>(text, values);
  } finally {
    await c.end();
  }
}

/** Waits until the tenant's feed holds exactly `ids` (in this order) and returns the events. */
async function feedHolds(tenantId: string, ids: string[]) {
  return eventually(async () => {
    const all = await readAll(client, tenantId);
    return all.ids.length === ids.length ? all : undefined;
  }).then((all) => {
    expect(all.ids).toEqual(ids);
    return all;
  });
}

describe('the feed', () => {
  test("returns the tenant's events in the envelope of part 6, in transaction order", async () => {
    const tenant = newId();
    const entity = newId();
    const [created] = await producer.write(tenant, [entityCreated(entity, 'DMRN-1')], 'public-api:key-1');
    const [updated] = await producer.write(tenant, [entityUpdated(entity, ['externalReferences'])], 'playout');
    const all = await feedHolds(tenant, [created!, updated!]);
    const first = all.events[0]!;
    expect(first).toEqual({
      id: created,
      type: 'entity.created',
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      product: 'catalog',
      resourceKind: 'entity',
      resourceId: entity,
      dmrn: 'DMRN-1',
      sourceSystem: 'public-api:key-1',
      batchId: expect.any(String),
      schemaVersion: 1,
      data: { entityType: 'song' },
    });
    expect(all.events[1]).toMatchObject({ dmrn: null, sourceSystem: 'playout', data: { changedFields: ['externalReferences'] } });
    // The page is rendered by Postgres: the same instant (to the millisecond, in UTC) as the event
    // the relay published, and the fields in the order of part 6.
    const { rows } = await sql<{ occurred_at: Date }>`select occurred_at from producer.outbox where id = ${created!}`.execute(
      producer.database.db,
    );
    expect(first.occurredAt).toBe(rows[0]!.occurred_at.toISOString());
    expect(Object.keys(first)).toEqual(Object.keys(FeedEvent.properties));
  });

  test('events written in one transaction share a batch id', async () => {
    const tenant = newId();
    const ids = await producer.write(tenant, [entityCreated(newId()), entityCreated(newId())]);
    const all = await feedHolds(tenant, [...ids].sort());
    expect(new Set(all.events.map((e) => e.batchId)).size).toBe(1);
  });

  test('pages: limit, hasMore, nextCursor, and an empty page with a null cursor', async () => {
    const tenant = newId();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(...(await producer.write(tenant, [entityCreated(newId())])));
    await feedHolds(tenant, ids);

    const first = await client.page(tenant, { limit: 2 });
    expect(first.events.map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const second = await client.page(tenant, { limit: 2, after: first.nextCursor });
    expect(second.events.map((e) => e.id)).toEqual(ids.slice(2, 4));
    const third = await client.page(tenant, { limit: 2, after: second.nextCursor });
    expect(third.events.map((e) => e.id)).toEqual(ids.slice(4));
    expect(third.hasMore).toBe(false);
    const empty = await client.page(tenant, { limit: 2, after: third.nextCursor });
    expect(empty).toEqual({ events: [], nextCursor: null, hasMore: false });
    // Retrying a cursor is safe: same page again.
    expect(await client.page(tenant, { limit: 2, after: first.nextCursor })).toEqual(second);
    // The default page size is 100.
    expect((await client.page(tenant)).events).toHaveLength(5);
  });

  test('the cursor is opaque: it does not contain an event id in clear', async () => {
    const tenant = newId();
    const ids = await producer.write(tenant, [entityCreated(newId())]);
    await feedHolds(tenant, ids);
    const page = await client.page(tenant, {});
    expect(page.nextCursor).not.toContain(ids[0]);
    expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  test('types filters; unknown types are a 400; ping is known and matches nothing', async () => {
    const tenant = newId();
    const entity = newId();
    const created = await producer.write(tenant, [entityCreated(entity)]);
    const updated = await producer.write(tenant, [entityUpdated(entity)]);
    await feedHolds(tenant, [...created, ...updated]);
    expect((await readAll(client, tenant, null, { types: 'entity.updated' })).ids).toEqual(updated);
    expect((await readAll(client, tenant, null, { types: 'entity.created, entity.updated' })).ids).toEqual([...created, ...updated]);
    expect(await client.page(tenant, { types: 'ping' })).toEqual({ events: [], nextCursor: null, hasMore: false });
    expect(await client.failure(tenant, { types: 'entity.exploded' })).toEqual({ status: 400, code: 'unknown_event_type' });
    expect(await client.failure(tenant, { types: 'entity.created,nope' })).toEqual({ status: 400, code: 'unknown_event_type' });
    expect(await client.failure(tenant, { types: 'entity.created,,entity.updated' })).toEqual({ status: 400, code: 'invalid_query' });
  });

  test('changing the types filter keeps the position: no replay of earlier events of newly selected types', async () => {
    const tenant = newId();
    const entity = newId();
    const a = await producer.write(tenant, [entityCreated(entity)]);
    const b = await producer.write(tenant, [entityUpdated(entity)]);
    const c = await producer.write(tenant, [entityCreated(newId())]);
    const d = await producer.write(tenant, [entityUpdated(entity)]);
    await feedHolds(tenant, [...a, ...b, ...c, ...d]);
    // A client following only entity.updated has seen b.
    const updatesOnly = await client.page(tenant, { types: 'entity.updated', limit: 1 });
    expect(updatesOnly.events.map((e) => e.id)).toEqual(b);
    // It now asks for both types with the same cursor: c and d, never a (which precedes b).
    const both = await readAll(client, tenant, updatesOnly.nextCursor, { types: 'entity.created,entity.updated' });
    expect(both.ids).toEqual([...c, ...d]);
  });

  test('limit outside 1..500 is a 400', async () => {
    const tenant = newId();
    expect(await client.failure(tenant, { limit: 0 })).toEqual({ status: 400, code: 'invalid_query' });
    expect(await client.failure(tenant, { limit: 501 })).toEqual({ status: 400, code: 'invalid_query' });
    expect((await client.page(tenant, { limit: 500 })).events).toEqual([]);
  });

  test('malformed, tampered, foreign-secret and other-tenant cursors are a 400', async () => {
    const tenant = newId();
    const other = newId();
    const ids = await producer.write(tenant, [entityCreated(newId()), entityCreated(newId())]);
    await producer.write(other, [entityCreated(newId())]);
    await feedHolds(tenant, [...ids].sort());
    const cursor = (await client.page(tenant, { limit: 1 })).nextCursor!;
    const invalid = { status: 400, code: 'invalid_cursor' };
    expect(await client.failure(tenant, { after: 'not a cursor' })).toEqual(invalid);
    expect(await client.failure(tenant, { after: 'AAAA' })).toEqual(invalid);
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    expect(await client.failure(tenant, { after: tampered })).toEqual(invalid);
    const forged = feedCursors('some-other-secret-0123456789abcdef').encode(tenant, { tx: '1', id: ids[0]! });
    expect(await client.failure(tenant, { after: forged })).toEqual(invalid);
    // A valid cursor, but of another tenant.
    expect(await client.failure(other, { after: cursor })).toEqual(invalid);
  });

  test("tenant isolation: a tenant never sees another tenant's events", async () => {
    const tenantA = newId();
    const tenantB = newId();
    const a = await producer.write(tenantA, [entityCreated(newId())]);
    const b = await producer.write(tenantB, [entityCreated(newId())]);
    await feedHolds(tenantA, a);
    await feedHolds(tenantB, b);
  });

  test('product isolation: events of another product are recorded but never in the catalog feed', async () => {
    const tenant = newId();
    const library = await producer.write(tenant, [trackUpdated(newId())]);
    const catalog = await producer.write(tenant, [entityCreated(newId())]);
    // The library event is stored (for that product's subscribers)...
    const stored = await eventually(async () => {
      const { rows } = await ownerQuery<{ product: string }>('select product from events.feed where id = $1', [library[0]]);
      return rows.length === 1 ? rows[0] : undefined;
    });
    expect(stored).toEqual({ product: 'library' });
    // ...and the catalog feed has only the catalog event, before and after it.
    await feedHolds(tenant, catalog);
  });

  test('an event delivered twice (re-published without dedupe) is stored once', async () => {
    const tenant = newId();
    const js = jetstream(nc);
    const event = busEvent(tenant);
    // Different Nats-Msg-Ids, as after a crash beyond the duplicate window: two stream messages.
    await js.publish(subjects.events('catalog', 'entity.created'), encodeBusEvent(event), { msgID: newId() });
    await js.publish(subjects.events('catalog', 'entity.created'), new TextEncoder().encode('{"not":"an event"}'), { msgID: newId() });
    await js.publish(subjects.events('catalog', 'entity.created'), encodeBusEvent(event), { msgID: newId() });
    const later = await producer.write(tenant, [entityCreated(newId())]);
    await feedHolds(tenant, [event.id, ...later]);
  });
});
