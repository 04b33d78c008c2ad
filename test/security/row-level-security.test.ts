import pg from 'pg';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * Issue 17, item 12: a guard no new table can slip past. Once every service has migrated, every
 * table with a `tenant_id` column is under row-level security, forced (so that it holds for the
 * table's owner too), and no service's login role owns a table or may bypass row-level security.
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
