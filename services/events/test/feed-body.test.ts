import { jetstream } from '@nats-io/jetstream';
import pg from 'pg';
import {
  encodeBusEvent,
  envelopeOf,
  ensureEventsStream,
  migrateSchema,
  newId,
  SCHEMA_OWNER_ROLE,
  subjectsFor,
  type BusEvent,
  type NatsConnection,
  type ServiceRuntime,
} from '@catalog/platform';
import { createTestDatabase, eventually, testBus, testInfrastructure, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { eventsMigrations } from '../src/index.js';
import { busEvent, eventsEnv, feedClient, readAll, startEvents, type FeedClient } from './support.js';
import type { EventsDb } from '../src/persistence/tables.js';

/** Strings a producer may put in an event: quotes, backslashes, control characters, non-ASCII. */
const AWKWARD = 'Café "Live" \\ take\n2\t\u0001 \u2028 🎵';

let testDb: TestDatabase;
let owner: { url: string };
let nc: NatsConnection;
let client: FeedClient;
let events: ServiceRuntime<EventsDb> | null = null;
const prefix = uniqueNatsPrefix('body');
const subjects = subjectsFor(prefix);

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** The stored body of an event, read as the schema's owner (row-level security applies to it). */
async function storedBody(tenantId: string, id: string): Promise<string> {
  const c = new pg.Client({ connectionString: owner.url });
  await c.connect();
  try {
    await c.query(`select set_config('app.tenant_id', $1, false)`, [tenantId]);
    const { rows } = await c.query<{ body: string }>('select body from events.feed where id = $1', [id]);
    return rows[0]!.body;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  const { natsUrl } = testInfrastructure();
  testDb = await createTestDatabase('feedbody');
  // Migrations run as the schema owner, no superuser, as in a deployment (decision 0057): the
  // feed's forced row-level security applies to it.
  owner = { url: testDb.urlAs(SCHEMA_OWNER_ROLE) };
  nc = await testBus('feed-body-test', { url: natsUrl });
  client = await feedClient(natsUrl, subjects);
});

afterAll(async () => {
  await client.close();
  await nc.drain();
  await events?.stop();
  await testDb.drop();
});

test('events stored before the body column get theirs from the migration, escaped as JSON.stringify escapes', async () => {
  const before = { '0001_feed': eventsMigrations['0001_feed']!, '0002_feed_writer': eventsMigrations['0002_feed_writer']! };
  await migrateSchema({ url: owner.url, schema: 'events', role: 'events_app', migrations: before });
  const tenantId = newId();
  const awkward: BusEvent = {
    ...busEvent(tenantId),
    type: 'entity.updated',
    occurredAt: '2026-11-22T05:20:32.120Z',
    dmrn: AWKWARD,
    sourceSystem: `playout ${AWKWARD}`,
    data: { changedFields: ['title'], note: AWKWARD, nested: { n: 1.5, flag: true, none: null } },
  };
  const bare: BusEvent = { ...busEvent(tenantId), occurredAt: '2026-11-22T05:20:33.000Z', resourceId: null, dmrn: null };
  for (const [i, e] of [awkward, bare].entries()) {
    await query(
      owner.url,
      `insert into events.feed (tx_id, id, tenant_id, product, type, occurred_at, resource_kind, resource_id, dmrn,
                                source_system, batch_id, schema_version, data)
       values ($1::text::xid8, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        String(10 + i),
        e.id,
        e.tenantId,
        e.product,
        e.type,
        e.occurredAt,
        e.resourceKind,
        e.resourceId,
        e.dmrn,
        e.sourceSystem,
        e.batchId,
        e.schemaVersion,
        e.data,
      ],
    );
  }

  const applied = await migrateSchema({ url: owner.url, schema: 'events', role: 'events_app', migrations: eventsMigrations });
  expect(applied).toEqual(Object.keys(eventsMigrations).filter((name) => !(name in before)));
  expect(applied[0]).toBe('0003_feed_body');

  for (const e of [awkward, bare]) {
    const body = await storedBody(tenantId, e.id);
    const expected = JSON.stringify(envelopeOf(e));
    // Byte for byte up to `data`, whose jsonb text has spaces after colons and commas.
    expect(body.slice(0, body.indexOf('"data":'))).toBe(expected.slice(0, expected.indexOf('"data":')));
    expect(JSON.parse(body)).toEqual(envelopeOf(e));
  }
  const [forced] = await query<{ relforcerowsecurity: boolean }>(
    testDb.url,
    `select relforcerowsecurity from pg_class where oid = 'events.feed'::regclass`,
  );
  expect(forced!.relforcerowsecurity).toBe(true);

  events = await startEvents(await eventsEnv(testDb, testInfrastructure().natsUrl, prefix));
  // Visible once no older transaction of the cluster is open (decision 0030): wait as a client would.
  const page = await eventually(async () => {
    const read = await client.page(tenantId, { limit: 10 });
    return read.events.length === 2 ? read : undefined;
  }, 20_000);
  expect(page.events).toEqual([envelopeOf(awkward), envelopeOf(bare)]);
  expect(page.hasMore).toBe(false);
});

test('the feed writer stores each event as JSON.stringify of its envelope, and pages serve that text', async () => {
  expect(events).not.toBeNull();
  const tenantId = newId();
  const published: BusEvent[] = [
    { ...busEvent(tenantId), dmrn: AWKWARD, sourceSystem: AWKWARD, data: { changedFields: ['dmrn'], note: AWKWARD } },
    // Sent with an offset; stored and served in UTC with milliseconds, as every other event.
    { ...busEvent(tenantId), occurredAt: '2026-11-22T07:20:32+02:00', resourceId: null },
  ];
  await ensureEventsStream(nc, subjects);
  const js = jetstream(nc);
  for (const e of published) await js.publish(subjects.events(e.product, e.type), encodeBusEvent(e), { msgID: e.id });

  const read = await eventually(async () => {
    const all = await readAll(client, tenantId);
    return all.ids.length === published.length ? all : undefined;
  }, 20_000);
  expect(read.events).toEqual(published.map(envelopeOf));
  expect(read.events[1]!.occurredAt).toBe('2026-11-22T05:20:32.000Z');
  for (const e of published) expect(await storedBody(tenantId, e.id)).toBe(JSON.stringify(envelopeOf(e)));

  // Pages of one event each walk the same events with the same cursors as one page of both.
  const first = await client.page(tenantId, { limit: 1 });
  expect(first.events.map((e) => e.id)).toEqual([published[0]!.id]);
  expect(first.hasMore).toBe(true);
  const second = await client.page(tenantId, { limit: 1, after: first.nextCursor });
  expect(second.events.map((e) => e.id)).toEqual([published[1]!.id]);
  expect(second.hasMore).toBe(false);
  const end = await client.page(tenantId, { limit: 1, after: second.nextCursor });
  expect(end).toEqual({ events: [], nextCursor: null, hasMore: false });
});
