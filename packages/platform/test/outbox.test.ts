import {
  createDatabase,
  executeWithEvents,
  inTenantScope,
  inTenantTransaction,
  migrateSchema,
  newId,
  outboxFor,
  sql,
  type Database,
  type OutboxEvent,
} from '@catalog/platform';
import { createTestDatabase, type TestDatabase } from '@catalog/testing';
import { notesWithOutbox, type NotesWithOutboxDb } from './notes-table.js';

const SCHEMA = 'outboxtest';
const ROLE = `${SCHEMA}_app`;

/** The outbox rows of a tenant in the order they were recorded, with each row's transaction. */
async function outboxRows(database: Database<NotesWithOutboxDb>, tenantId: string) {
  return inTenantScope(database.db, tenantId, (db) =>
    db
      .selectFrom('outbox')
      .select(['id', 'type', 'batch_id', sql<string>`tx_id::text`.as('tx')])
      .where(sql<boolean>`tenant_id = ${tenantId}`)
      .orderBy(sql`seq`)
      .execute(),
  );
}

let testDb: TestDatabase;
const tenantA = newId();
const tenantB = newId();

beforeAll(async () => {
  testDb = await createTestDatabase('outbox');
  await migrateSchema({ url: testDb.url, schema: SCHEMA, role: ROLE, migrations: notesWithOutbox(SCHEMA) });
});

afterAll(async () => {
  await testDb.drop();
});

describe('the outbox', () => {
  test('outbox events commit and roll back with their write, sharing a batch id', async () => {
    const database = createDatabase<NotesWithOutboxDb>({ url: testDb.url, schema: SCHEMA, role: ROLE });
    try {
      await inTenantTransaction(database.db, tenantA, async (trx) => {
        const outbox = outboxFor(trx, SCHEMA, { tenantId: tenantA, sourceSystem: 'public-api:k1' });
        await outbox.record({ type: 'entity.created', resourceId: newId(), dmrn: null, data: { entityType: 'track' } });
        await outbox.record({ type: 'entity.updated', resourceId: newId(), dmrn: null, data: { changedFields: ['title'] } });
      });
      await expect(
        inTenantTransaction(database.db, tenantA, async (trx) => {
          await outboxFor(trx, SCHEMA, { tenantId: tenantA, sourceSystem: 's' }).record({
            type: 'entity.deleted',
            resourceId: newId(),
            dmrn: null,
            data: {},
          });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      const rows = await outboxRows(database, tenantA);
      expect(rows.map((r) => r.type)).toEqual(['entity.created', 'entity.updated']);
      expect(new Set(rows.map((r) => r.batch_id)).size).toBe(1);
      expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
    } finally {
      await database.close();
    }
  });

  test('executeWithEvents: a write and its events in one statement, committed or failed together', async () => {
    const database = createDatabase<NotesWithOutboxDb>({ url: testDb.url, schema: SCHEMA, role: ROLE });
    try {
      const context = { tenantId: tenantB, sourceSystem: 'public-api:k2' };
      const id = newId();
      const events: OutboxEvent[] = [
        { type: 'entity.created', resourceId: id, dmrn: null, data: { entityType: 'track' } },
        { type: 'entity.updated', resourceId: id, dmrn: null, data: { changedFields: ['title'] } },
      ];
      const written = await inTenantScope(database.db, tenantB, (db) =>
        executeWithEvents(
          db,
          SCHEMA,
          context,
          db.insertInto('notes').values({ id, tenant_id: tenantB, text: 'one' }).returningAll(),
          events,
        ),
      );
      expect(written).toEqual([{ id, tenant_id: tenantB, text: 'one' }]);
      // The same id again: the write fails, and neither event is recorded.
      await expect(
        inTenantScope(database.db, tenantB, (db) =>
          executeWithEvents(db, SCHEMA, context, db.insertInto('notes').values({ id, tenant_id: tenantB, text: 'two' }).returningAll(), [
            { type: 'entity.deleted', resourceId: id, dmrn: null, data: {} },
          ]),
        ),
      ).rejects.toThrow(/duplicate key/);
      const rows = await outboxRows(database, tenantB);
      expect(rows.map((r) => r.type)).toEqual(['entity.created', 'entity.updated']);
      expect(new Set(rows.map((r) => r.batch_id)).size).toBe(1);
      expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
    } finally {
      await database.close();
    }
  });

  test("recordAll: events in order in one statement, sharing the outbox's batch, or each its own with 'per-event'", async () => {
    const database = createDatabase<NotesWithOutboxDb>({ url: testDb.url, schema: SCHEMA, role: ROLE });
    const tenant = newId();
    const context = { tenantId: tenant, sourceSystem: 'library' };
    const created = (): OutboxEvent => ({ type: 'entity.created', resourceId: newId(), dmrn: null, data: { entityType: 'track' } });
    try {
      const importId = newId();
      const shared = await inTenantTransaction(database.db, tenant, (trx) =>
        outboxFor(trx, SCHEMA, context, importId).recordAll([created(), created(), created()]),
      );
      const separate = await inTenantTransaction(database.db, tenant, (trx) =>
        outboxFor(trx, SCHEMA, context, 'per-event').recordAll([created(), created(), created()]),
      );
      const rows = await outboxRows(database, tenant);
      expect(rows.map((r) => r.id)).toEqual([...shared, ...separate]);
      expect(rows.slice(0, 3).map((r) => r.batch_id)).toEqual([importId, importId, importId]);
      expect(new Set(rows.slice(3).map((r) => r.batch_id)).size).toBe(3);
    } finally {
      await database.close();
    }
  });

  test('executeWithEvents refuses a transaction (there, events are recorded with outboxFor)', async () => {
    const database = createDatabase<NotesWithOutboxDb>({ url: testDb.url, schema: SCHEMA, role: ROLE });
    const id = newId();
    try {
      await expect(
        inTenantTransaction(database.db, tenantA, (trx) =>
          executeWithEvents(
            // @ts-expect-error a transaction is no place for executeWithEvents
            trx,
            SCHEMA,
            { tenantId: tenantA, sourceSystem: 's' },
            trx.insertInto('notes').values({ id, tenant_id: tenantA, text: 'in a transaction' }).returningAll(),
            [],
          ),
        ),
      ).rejects.toThrow(/outside a transaction/);
      expect(await inTenantScope(database.db, tenantA, (db) => db.selectFrom('notes').select('id').where('id', '=', id).execute())).toEqual(
        [],
      );
    } finally {
      await database.close();
    }
  });
});
