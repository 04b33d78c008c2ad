import { sql, type Kysely } from 'kysely';
import { createDatabase, inTenantScope, inTenantTransaction, migrateSchema, newId, unprepared, type Migrations } from '@catalog/platform';
import { createTestDatabase, type TestDatabase } from '@catalog/testing';
import { createNotesTable } from './notes-table.js';

interface TestDb {
  notes: { id: string; tenant_id: string; text: string };
}

const migrations: Migrations = {
  '0001_notes': {
    async up(db) {
      await createNotesTable(db, 'unpreparedtest', { text: true });
    },
  },
};

let testDb: TestDatabase;
const tenant = newId();

beforeAll(async () => {
  testDb = await createTestDatabase('unprepared');
  await migrateSchema({ url: testDb.url, schema: 'unpreparedtest', role: 'unpreparedtest_app', migrations });
});

afterAll(async () => {
  await testDb?.drop();
});

/** Decision 0158: the statements Kysely runs are named by the dialect's driver, except those run through `unprepared(db)`. */
test('a statement run through unprepared(db) is never named, in a transaction or not; the same statement otherwise is', async () => {
  const database = createDatabase<TestDb>({ url: testDb.url, schema: 'unpreparedtest', role: 'unpreparedtest_app', poolSize: 1 });
  try {
    const byText = (db: Kysely<TestDb>) => db.selectFrom('notes').select('id').where('text', '=', 'a search').execute();
    const namedTexts = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like ${'%"text" = $1%'}`.execute(
          database.db,
        )
      ).rows[0]!.n;
    await inTenantScope(database.db, tenant, (db) => byText(unprepared(db)));
    await inTenantScope(database.db, tenant, (db) => byText(unprepared(db)));
    await inTenantTransaction(database.db, tenant, (trx) => byText(unprepared(trx)));
    expect(await namedTexts()).toBe(0);
    await inTenantScope(database.db, tenant, byText);
    expect(await namedTexts()).toBe(1);
  } finally {
    await database.close();
  }
});
