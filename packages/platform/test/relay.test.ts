import pg from 'pg';
import {
  createDatabase,
  inTenantTransaction,
  newId,
  outboxFor,
  resourceWindows,
  sql,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import { eventually, testBus } from '@catalog/testing';
import { created, relayFixture, SCHEMA, streamEvents, type RelayTestDb } from './relay-fixture.js';

const fx = relayFixture('relay');
const { tenant, record, relayFor, unpublished } = fx;

describe('resource windows', () => {
  test('split rows so no resource appears twice in a window, keeping order', () => {
    const row = (id: string | null, n: number) => ({ resource_kind: 'note', resource_id: id, n });
    const windows = resourceWindows([row('a', 1), row('b', 2), row('a', 3), row(null, 4), row('c', 5), row(null, 6)]);
    expect(windows.map((w) => w.map((r) => r.n))).toEqual([[1, 2], [3, 4, 5], [6]]);
  });
});

describe('outbox relay', () => {
  let nc: NatsConnection;
  let subjects: Subjects;

  beforeEach(async () => {
    ({ nc, subjects } = await fx.freshBus('relay'));
  });
  afterEach(() => nc.drain());

  test('publishes every row with its event id as Nats-Msg-Id, in commit order, and marks it', async () => {
    const relay = relayFor(nc, subjects);
    try {
      const resource = newId();
      const ids: string[] = [];
      for (let i = 0; i < 30; i += 1) ids.push(await record(resource));
      await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
      const events = await streamEvents(nc, subjects);
      expect(events.map((e) => e.id)).toEqual(ids);
      expect(events[0]).toMatchObject({
        tenantId: tenant,
        type: 'entity.updated',
        product: 'catalog',
        resourceKind: 'entity',
        resourceId: resource,
        dmrn: null,
        sourceSystem: 'test',
        schemaVersion: 1,
        data: { changedFields: ['title'] },
        subject: subjects.events('catalog', 'entity.updated'),
      });
    } finally {
      await relay.stop();
    }
  });

  test('a transaction of more rows than a batch is published whole and in order, also where seq gains a digit', async () => {
    // Rows 95-106 of one transaction, read five at a time: ordered as text, 100-104 would come
    // first and the rows below 100 would never be read.
    const owner = createDatabase<RelayTestDb>({ url: fx.testDb.url, schema: SCHEMA, role: 'postgres' });
    await sql`alter table relaytest.outbox alter column seq restart with 95`.execute(owner.db);
    await owner.close();
    const ids = await inTenantTransaction(fx.database.db, tenant, async (trx) => {
      const outbox = outboxFor(trx, SCHEMA, { tenantId: tenant, sourceSystem: 'test' });
      const recorded: string[] = [];
      for (let i = 0; i < 12; i += 1) recorded.push(await outbox.record(created()));
      return recorded;
    });
    const relay = relayFor(nc, subjects, { batchSize: 5 });
    try {
      await eventually(async () => ((await streamEvents(nc, subjects)).length === ids.length ? true : undefined));
      expect((await streamEvents(nc, subjects)).map((e) => e.id)).toEqual(ids);
      expect(await unpublished()).toBe(0);
    } finally {
      await relay.stop();
    }
  });

  test('publishes while every connection of the service pool is taken (it works on the lease connection)', async () => {
    const relay = relayFor(nc, subjects);
    const writer = createDatabase<RelayTestDb>({ url: fx.testDb.url, schema: SCHEMA, role: `${SCHEMA}_app`, poolSize: 1 });
    const held = await Promise.all(Array.from({ length: 10 }, () => fx.database.pool.connect()));
    try {
      const id = await record(newId(), writer.db);
      await eventually(async () => ((await streamEvents(nc, subjects)).some((e) => e.id === id) ? true : undefined));
    } finally {
      for (const client of held) client.release();
      await relay.stop();
      await writer.close();
    }
  });

  test('a transaction still open holds back later commits instead of being overtaken', async () => {
    const relay = relayFor(nc, subjects);
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let heldId = '';
      let recorded!: () => void;
      const heldRecorded = new Promise<void>((resolve) => {
        recorded = resolve;
      });
      const holder = inTenantTransaction(fx.database.db, tenant, async (trx) => {
        heldId = await outboxFor(trx, SCHEMA, { tenantId: tenant, sourceSystem: 'test' }).record(created());
        recorded();
        await held;
      });
      await heldRecorded;
      const later = await record(newId());
      try {
        // The later row is committed (the held one is not visible yet), but it must wait for the
        // open transaction below it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        // eslint-disable-next-line no-restricted-syntax -- the relay polls every 50 ms and has no pass counter to wait for; load only lengthens the wait
        expect(await unpublished()).toBe(1);
      } finally {
        release();
        await holder;
      }
      await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
      expect((await streamEvents(nc, subjects)).map((e) => e.id)).toEqual([heldId, later]);
    } finally {
      await relay.stop();
    }
  });

  test('a transaction open in another database of the cluster holds nothing back', async () => {
    // Another database of the same cluster (another service's, another test file's), with a write open in it.
    const admin = new pg.Client({ connectionString: fx.testDb.url });
    await admin.connect();
    const other = `${fx.testDb.name}_other`;
    await admin.query(`create database ${other}`);
    const url = new URL(fx.testDb.url);
    url.pathname = `/${other}`;
    const elsewhere = new pg.Client({ connectionString: url.toString() });
    await elsewhere.connect();
    const relay = relayFor(nc, subjects);
    try {
      await elsewhere.query('begin');
      await elsewhere.query('select pg_current_xact_id()');
      const id = await record(newId());
      // Published while the other database's transaction, older than it, is still open.
      await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
      expect((await streamEvents(nc, subjects)).map((e) => e.id)).toEqual([id]);
    } finally {
      await relay.stop();
      await elsewhere.query('rollback').catch(() => undefined);
      await elsewhere.end();
      await admin.query(`drop database ${other}`);
      await admin.end();
    }
  });

  test('replicas of a relay publish each row once, one at a time', async () => {
    const relays = [relayFor(nc, subjects), relayFor(nc, subjects), relayFor(nc, subjects)];
    try {
      const ids: string[] = [];
      const writers = Array.from({ length: 5 }, async () => {
        for (let i = 0; i < 40; i += 1) ids.push(await record(newId()));
      });
      await Promise.all(writers);
      await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
      const events = await streamEvents(nc, subjects);
      expect(events).toHaveLength(ids.length);
      expect(new Set(events.map((e) => e.id))).toEqual(new Set(ids));
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
    }
  });

  test('a stopped leader hands over: the next replica publishes what is left', async () => {
    const first = relayFor(nc, subjects);
    const second = relayFor(nc, subjects);
    try {
      const before = await record(newId());
      await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
      await first.stop();
      const after = await record(newId());
      await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
      expect((await streamEvents(nc, subjects)).map((e) => e.id)).toEqual([before, after]);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  test('prunes published rows older than the retention, never unpublished ones', async () => {
    const owner = createDatabase<RelayTestDb>({ url: fx.testDb.url, schema: SCHEMA, role: 'postgres' });
    const nowhere = await testBus('prune');
    try {
      const old = await record(newId());
      const pending = await record(newId());
      await sql`update relaytest.outbox set published_at = now() - interval '8 days' where id = ${old}`.execute(owner.db);
      // A relay whose stream cannot be reached: nothing gets published, but pruning still runs.
      const relay = relayFor(nowhere, subjects, { pruneIntervalMs: 100, retentionMs: 7 * 24 * 3600_000 });
      await nowhere.close();
      try {
        await eventually(async () => {
          const { rows } = await sql<{ id: string }>`select id from relaytest.outbox`.execute(owner.db);
          return rows.length === 1 ? rows : undefined;
        }).then((rows) => expect(rows.map((r) => r.id)).toEqual([pending]));
      } finally {
        await relay.stop();
      }
    } finally {
      await owner.close();
    }
  });
});
