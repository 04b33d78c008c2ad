import { sql } from 'kysely';
import pg from 'pg';
import {
  AppError,
  callRpc,
  createDatabase,
  inTenantScope,
  inTenantTransaction,
  JsonText,
  withoutTenant,
  migrateSchema,
  newId,
  serveRpc,
  subjectsFor,
} from '@catalog/platform';
import { createTestDatabase, testBus, testCallContext, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { notesWithOutbox, type NotesWithOutboxDb } from './notes-table.js';

type TestDb = NotesWithOutboxDb;
const migrations = notesWithOutbox('platformtest');

let testDb: TestDatabase;
const tenantA = newId();
const tenantB = newId();

beforeAll(async () => {
  testDb = await createTestDatabase('platform');
  await migrateSchema({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', migrations });
});

afterAll(async () => {
  await testDb.drop();
});

describe('database', () => {
  test('migrations are idempotent and recorded in the service schema', async () => {
    const again = await migrateSchema({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', migrations });
    expect(again).toEqual([]);
  });

  test('replicas that start together migrate a new schema side by side: each starts, the migrations run once', async () => {
    // Two replicas of a service start at once (a deploy, a crash loop): schema, grants and
    // migrations must not fail one of them with "tuple concurrently updated" or a duplicate key.
    for (const round of [1, 2, 3, 4, 5]) {
      const schema = `racetest${round}`;
      const settings = { url: testDb.url, schema, role: `${schema}_app`, migrations: notesWithOutbox(schema) };
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => migrateSchema(settings)));
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(failures).toEqual([]);
      const applied = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      expect(applied).toEqual(['0001_notes']);
    }
  });

  test('a migration has closed its connection when it returns, so the database may be dropped or stopped next', async () => {
    const admin = new pg.Client({ connectionString: testDb.url });
    await admin.connect();
    try {
      for (let i = 0; i < 10; i += 1) {
        await migrateSchema({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', migrations });
        const { rows } = await admin.query(
          "select count(*)::int as open from pg_stat_activity where application_name = 'migrate:platformtest'",
        );
        expect(rows).toEqual([{ open: 0 }]);
      }
    } finally {
      await admin.end();
    }
  });

  test('row-level security: a tenant sees only its rows, no tenant set sees nothing', async () => {
    const database = createDatabase<TestDb>({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app' });
    try {
      await inTenantTransaction(database.db, tenantA, (trx) =>
        trx.insertInto('notes').values({ id: newId(), tenant_id: tenantA, text: 'a' }).execute(),
      );
      await inTenantTransaction(database.db, tenantB, (trx) =>
        trx.insertInto('notes').values({ id: newId(), tenant_id: tenantB, text: 'b' }).execute(),
      );

      const seenByA = await inTenantTransaction(database.db, tenantA, (trx) => trx.selectFrom('notes').select('text').execute());
      expect(seenByA.map((r) => r.text)).toEqual(['a']);

      const withoutTenant = await database.db.transaction().execute((trx) => trx.selectFrom('notes').selectAll().execute());
      expect(withoutTenant).toEqual([]);

      // Writing a row for another tenant than the transaction's is refused by the policy.
      await expect(
        inTenantTransaction(database.db, tenantA, (trx) =>
          trx.insertInto('notes').values({ id: newId(), tenant_id: tenantB, text: 'x' }).execute(),
        ),
      ).rejects.toThrow(/row-level security/);
    } finally {
      await database.close();
    }
  });

  test('pooled connections never carry a tenant into another context (one connection, interleaved tenants)', async () => {
    const database = createDatabase<TestDb>({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', poolSize: 1 });
    try {
      const read = (tenant: string) =>
        inTenantScope(database.db, tenant, (db) => db.selectFrom('notes').select('text').orderBy('text').execute());
      const results = await Promise.all([read(tenantA), read(tenantB), read(tenantA), read(tenantB)]);
      expect(results.map((rows) => rows.map((r) => r.text))).toEqual([['a'], ['b'], ['a'], ['b']]);
      // The same single connection, now used outside any tenant context, sees nothing.
      expect(await database.db.selectFrom('notes').selectAll().execute()).toEqual([]);
      expect(
        await inTenantScope(database.db, tenantA, () => withoutTenant(() => database.db.selectFrom('notes').selectAll().execute())),
      ).toEqual([]);
      await expect(inTenantScope(database.db, 'not-a-uuid', async () => 1)).rejects.toThrow(/UUID/);
    } finally {
      await database.close();
    }
  });

  test('a tenant gets back an idle connection that already serves it, whichever was released last', async () => {
    const database = createDatabase<TestDb>({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', poolSize: 3 });
    const backendPid = (tenant: string | null) => {
      const read = (db: typeof database.db) =>
        sql<{ pid: number; tenant: string }>`select pg_backend_pid() as pid, current_setting('app.tenant_id', true) as tenant`.execute(db);
      return (tenant ? inTenantScope(database.db, tenant, read) : read(database.db)).then((r) => r.rows[0]!);
    };
    try {
      // Three connections, one per context, released in the order A, B, none.
      const [a, b, none] = await Promise.all([
        inTenantTransaction(database.db, tenantA, (trx) =>
          sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(trx),
        ),
        inTenantTransaction(database.db, tenantB, (trx) =>
          sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.1)`.execute(trx),
        ),
        database.db.transaction().execute((trx) => sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.15)`.execute(trx)),
      ]);
      const pids = { a: a.rows[0]!.pid, b: b.rows[0]!.pid, none: none.rows[0]!.pid };
      expect(new Set(Object.values(pids)).size).toBe(3);
      for (const [tenant, pid] of [
        [tenantA, pids.a],
        [tenantB, pids.b],
        [null, pids.none],
        [tenantA, pids.a],
        [null, pids.none],
        [tenantB, pids.b],
      ] as const) {
        expect(await backendPid(tenant)).toEqual({ pid, tenant: tenant ?? '' });
      }
    } finally {
      await database.close();
    }
  });
});

describe('prepared statements', () => {
  test('statements are prepared once per connection, inside transactions too', async () => {
    const database = createDatabase<TestDb>({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', poolSize: 1 });
    try {
      const prepared = async () =>
        (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(database.db)).rows.map((r) => r.statement);
      const read = () =>
        inTenantScope(database.db, tenantA, (db) => db.selectFrom('notes').select('id').where('tenant_id', '=', tenantA).execute());
      await read();
      await read();
      expect((await prepared()).filter((s) => s.includes('from "platformtest"."notes"') && s.includes('"tenant_id" = $1'))).toHaveLength(1);
      const readInTransaction = () =>
        inTenantTransaction(database.db, tenantA, (trx) =>
          trx.selectFrom('notes').select('text').where('text', '=', 'in a transaction').execute(),
        );
      await readInTransaction();
      await readInTransaction();
      expect((await prepared()).filter((s) => s.includes('"text" = $1'))).toHaveLength(1);
    } finally {
      await database.close();
    }
  });

  test('a transaction whose prepared statement Postgres refuses (its result type changed) runs again, once, unprepared', async () => {
    const database = createDatabase<TestDb>({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', poolSize: 1 });
    const owner = new pg.Client({ connectionString: testDb.url });
    await owner.connect();
    try {
      const id = newId();
      let attempts = 0;
      // Reads the note with `*` and writes another one in the same transaction.
      const readAndWrite = () =>
        inTenantTransaction(database.db, tenantA, async (trx) => {
          attempts += 1;
          const rows = await trx.selectFrom('notes').selectAll().where('id', '=', id).where('tenant_id', '=', tenantA).execute();
          await trx
            .insertInto('notes')
            .values({ id: newId(), tenant_id: tenantA, text: `after ${id}` })
            .execute();
          return rows;
        });
      await inTenantScope(database.db, tenantA, (db) =>
        db.insertInto('notes').values({ id, tenant_id: tenantA, text: 'before' }).execute(),
      );
      expect(await readAndWrite()).toEqual([{ id, tenant_id: tenantA, text: 'before' }]);
      await owner.query(`alter table platformtest.notes add column mood text not null default 'calm'`);
      attempts = 0;
      expect(await readAndWrite()).toEqual([{ id, tenant_id: tenantA, text: 'before', mood: 'calm' }]);
      expect(attempts).toBe(2);
      attempts = 0;
      expect(await readAndWrite()).toEqual([{ id, tenant_id: tenantA, text: 'before', mood: 'calm' }]);
      expect(attempts).toBe(1);
      // The refused attempt wrote nothing: one note per successful transaction.
      const { rows } = await owner.query('select count(*)::int as n from platformtest.notes where text = $1', [`after ${id}`]);
      expect(rows[0].n).toBe(3);
    } finally {
      await owner.query('alter table platformtest.notes drop column if exists mood');
      await owner.end();
      await database.close();
    }
  });

  test('a prepared statement whose result type changed (a column added) runs again unprepared', async () => {
    const database = createDatabase<TestDb>({ url: testDb.url, schema: 'platformtest', role: 'platformtest_app', poolSize: 1 });
    const owner = new pg.Client({ connectionString: testDb.url });
    await owner.connect();
    try {
      const id = newId();
      await inTenantScope(database.db, tenantA, (db) =>
        db.insertInto('notes').values({ id, tenant_id: tenantA, text: 'before' }).execute(),
      );
      const readAll = () => inTenantScope(database.db, tenantA, (db) => db.selectFrom('notes').selectAll().where('id', '=', id).execute());
      expect(await readAll()).toEqual([{ id, tenant_id: tenantA, text: 'before' }]);
      await owner.query(`alter table platformtest.notes add column mood text not null default 'calm'`);
      expect(await readAll()).toEqual([{ id, tenant_id: tenantA, text: 'before', mood: 'calm' }]);
      expect(await readAll()).toEqual([{ id, tenant_id: tenantA, text: 'before', mood: 'calm' }]);
    } finally {
      await owner.query('alter table platformtest.notes drop column if exists mood');
      await owner.end();
      await database.close();
    }
  });

  test('at most preparedStatementsPerConnection texts are prepared per connection; 0 turns it off', async () => {
    for (const limit of [2, 0]) {
      const database = createDatabase<TestDb>({
        url: testDb.url,
        schema: 'platformtest',
        role: 'platformtest_app',
        poolSize: 1,
        preparedStatementsPerConnection: limit,
      });
      try {
        // Four different texts of Kysely's (the pool's own statement setting the tenant is never named).
        for (const column of ['id', 'text', 'tenant_id'] as const) {
          await inTenantScope(database.db, tenantB, (db) => db.selectFrom('notes').select(column).where('id', '<>', newId()).execute());
        }
        await inTenantScope(database.db, tenantB, (db) =>
          db.selectFrom('notes').select(['id', 'text']).where('id', '<>', newId()).execute(),
        );
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_prepared_statements where statement like '%"notes"%'`.execute(database.db);
        const { rows: all } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(database.db);
        expect(rows[0]!.n).toBe(limit);
        expect(all[0]!.n).toBe(limit);
      } finally {
        await database.close();
      }
    }
  });
});

describe('rpc over NATS', () => {
  test('a call carries its context and returns data or a typed error', async () => {
    const logger = testLogger();
    const subjects = subjectsFor(uniqueNatsPrefix());
    const serverConn = await testBus('server');
    const clientConn = await testBus('client');
    try {
      await serveRpc({
        nc: serverConn,
        subjects,
        callContext: testCallContext(),
        service: 'echo',
        version: '1.0.0',
        logger,
        handlers: {
          echo: async (request, call) => ({ status: 201, body: { request, tenant: call.tenantId, source: call.sourceSystem } }),
          fail: async () => {
            throw new AppError(409, 'state_conflict', 'nope', { field: 'x' });
          },
          crash: async () => {
            throw new Error('boom');
          },
          rendered: async () => ({
            status: 200,
            body: new JsonText('{"events":[{"id":"e1"}],"hasMore":false}'),
            headers: { 'x-page': '1' },
          }),
        },
      });
      const call = { tenantId: tenantA, keyId: 'k1', sourceSystem: 'public-api:k1', requestId: 'r1' };
      const rpc = { nc: clientConn, subjects, callContext: testCallContext() };
      const ok = await callRpc(rpc, 'echo', 'echo', { params: { id: '1' }, query: {}, body: { a: 1 } }, call);
      expect(ok).toEqual({
        ok: true,
        status: 201,
        body: { request: { params: { id: '1' }, query: {}, body: { a: 1 } }, tenant: tenantA, source: 'public-api:k1' },
      });
      const failed = await callRpc(rpc, 'echo', 'fail', { params: {}, query: {}, body: null }, call);
      expect(failed).toEqual({ ok: false, error: { status: 409, code: 'state_conflict', message: 'nope', details: { field: 'x' } } });
      const crashed = await callRpc(rpc, 'echo', 'crash', { params: {}, query: {}, body: null }, call);
      expect(crashed).toEqual({ ok: false, error: { status: 500, code: 'internal_error', message: 'internal error' } });
      // A body the service already serialised: parsed for ordinary callers, passed on as bytes
      // to one that passes JSON through (the gateway), with its status and headers either way.
      const empty = { params: {}, query: {}, body: null };
      expect(await callRpc(rpc, 'echo', 'rendered', empty, call)).toEqual({
        ok: true,
        status: 200,
        body: { events: [{ id: 'e1' }], hasMore: false },
        headers: { 'x-page': '1' },
      });
      const passed = await callRpc({ ...rpc, passJsonThrough: true }, 'echo', 'rendered', empty, call);
      expect(passed.ok && passed.body instanceof JsonText && Buffer.from(passed.body.bytes()).toString()).toBe(
        '{"events":[{"id":"e1"}],"hasMore":false}',
      );
      expect(passed.ok && passed.headers).toEqual({ 'x-page': '1' });
      const missing = await callRpc({ ...rpc, timeoutMs: 1000 }, 'nobody', 'nothing', { params: {}, query: {}, body: null }, call);
      expect(missing.ok).toBe(false);
      expect(!missing.ok && missing.error.status).toBe(503);
    } finally {
      await serverConn.drain();
      await clientConn.drain();
    }
  });
});
