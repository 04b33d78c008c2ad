import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createDatabase, inTenantTransaction, serviceRoleOf, sql, type Database } from '@catalog/platform';
import { startSystem, type RunningSystem } from '../support/system.js';
import { generatedRow, seedTenantRows, tenantTables, type GeneratedRow, type TenantTable } from '../support/tenant-rows.js';

/**
 * Issue 17, item 12: a guard no new table can slip past. Once every service has migrated, every
 * table with a `tenant_id` column is under row-level security, forced (so that it holds for the
 * table's owner too), and no service's login role owns a table or may bypass row-level security.
 * Issue 24, item 8: and what the policies allow, table by table (a policy `USING (true)` is
 * enabled, forced and present too): a service working for one tenant reads, changes, deletes and
 * adds no row of another.
 */
let system: RunningSystem;
let admin: pg.Client;

beforeAll(async () => {
  system = await startSystem();
  admin = new pg.Client({ connectionString: system.database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await system?.stop();
});

test('every table with a tenant_id column, in every service schema, has row-level security enabled and forced', async () => {
  const { rows } = await admin.query<{ table: string; enabled: boolean; forced: boolean; policies: number }>(
    `select format('%s.%s', n.nspname, c.relname) as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced,
            (select count(*)::int from pg_policy p where p.polrelid = c.oid) as policies
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
      where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
      order by 1`,
  );
  const schemas = new Set(rows.map((row) => row.table.split('.')[0]));
  // The services that keep tenant rows have migrated (the check would pass on an empty database);
  // the gateway's tables are the tenants themselves (organisations, their keys).
  expect([...schemas].sort()).toEqual(['analysis', 'asset', 'catalog', 'events', 'library']);
  const unprotected = rows.filter((row) => !row.enabled || !row.forced || row.policies === 0);
  expect(unprotected).toEqual([]);
});

test("no service's login role owns a table or has SUPERUSER or BYPASSRLS", async () => {
  const { rows } = await admin.query<{ role: string; problem: string }>(
    `select r.rolname as role, 'owns ' || c.oid::regclass::text as problem
       from pg_class c join pg_roles r on r.oid = c.relowner
      where r.rolname like '%\\_app' and c.relkind in ('r', 'p', 'v', 'm', 'f')
     union all
     select rolname, 'superuser or bypassrls' from pg_roles where rolname like '%\\_app' and (rolsuper or rolbypassrls)`,
  );
  expect(rows).toEqual([]);
});

/** What a service bound to tenant A could do to tenant B's row of one table. */
interface Reach {
  table: string;
  /** Rows it sees, by tenant: A's own row only. */
  visible: Record<string, number>;
  /** Rows of B its UPDATE and DELETE reach (or the error they end with). */
  updated: number | string;
  deleted: number | string;
  /** What becomes of its INSERT of a row of B. */
  inserted: string;
}

const errorOf = (error: unknown): string => {
  const { code, message } = error as { code?: string; message: string };
  return code === '42501' && /row-level security/.test(message) ? 'refused by row-level security' : `${code}: ${message}`;
};

async function affected(run: () => Promise<{ numAffectedRows?: bigint }>): Promise<number | string> {
  try {
    return Number((await run()).numAffectedRows ?? 0n);
  } catch (error) {
    return errorOf(error);
  }
}

/** Tries, as the service's own role and in tenant A's transactions (as the services open them), to reach B's row of `table`. */
async function reachOf(database: Database<unknown>, table: TenantTable, tenantA: string, rowOfB: GeneratedRow): Promise<Reach> {
  const { db } = database;
  const name = sql.raw(table.name);
  const inA = <T>(fn: Parameters<typeof inTenantTransaction<unknown, T>>[2]) => inTenantTransaction(db, tenantA, fn);
  const tenantB = rowOfB.columns.find((column) => column.name === 'tenant_id')!.value as string;
  const counts = await inA((trx) =>
    sql<{ tenant: string; rows: number }>`select tenant_id::text as tenant, count(*)::int as rows from ${name} group by 1`.execute(trx),
  );
  const updated = await affected(() =>
    inA((trx) => sql`update ${name} set tenant_id = tenant_id where tenant_id = ${tenantB}`.execute(trx)),
  );
  const deleted = await affected(() => inA((trx) => sql`delete from ${name} where tenant_id = ${tenantB}`.execute(trx)));
  const columns = sql.raw(rowOfB.columns.map((column) => `"${column.name}"`).join(', '));
  const values = sql.join(rowOfB.columns.map((column) => sql`${column.value}::${sql.raw(column.type)}`));
  let inserted = 'inserted';
  try {
    await inA((trx) => sql`insert into ${name} (${columns}) values (${values})`.execute(trx));
  } catch (error) {
    inserted = errorOf(error);
  }
  const visible = Object.fromEntries(
    counts.rows.map((row) => [row.tenant === tenantA ? 'A' : row.tenant === tenantB ? 'B' : row.tenant, row.rows]),
  );
  return { table: table.name, visible, updated, deleted, inserted };
}

test("as its own database role, a service bound to tenant A neither sees, changes, deletes nor adds tenant B's rows, in every tenant table", async () => {
  // Nothing else works on the rows: a relay would publish the seeded outbox rows, say.
  await system.stopServices();
  const tables = await tenantTables(admin);
  const [tenantA, tenantB] = [randomUUID(), randomUUID()];
  await seedTenantRows(admin, tables, [tenantA, tenantB]);
  const databases = new Map<string, Database<unknown>>();
  const reach: Reach[] = [];
  try {
    for (const table of tables) {
      if (!databases.has(table.schema)) {
        const role = serviceRoleOf(table.schema);
        databases.set(table.schema, createDatabase({ url: system.database.urlAs(role), schema: table.schema, poolSize: 1 }));
      }
      reach.push(await reachOf(databases.get(table.schema)!, table, tenantA, await generatedRow(admin, table, tenantB)));
    }
  } finally {
    for (const database of databases.values()) await database.close();
  }
  expect(tables.length).toBeGreaterThanOrEqual(20);
  expect(reach).toEqual(
    tables.map((table) => ({ table: table.name, visible: { A: 1 }, updated: 0, deleted: 0, inserted: 'refused by row-level security' })),
  );
});
