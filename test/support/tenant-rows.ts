import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';

/** A table with a `tenant_id` column, as pg_catalog describes it. */
export interface TenantTable {
  schema: string;
  table: string;
  /** `schema.table`. */
  name: string;
}

/** A column the generated row must give a value: not null, no default, not generated. */
interface RequiredColumn {
  name: string;
  /** `format_type` of the column, e.g. `text`, `uuid`, `integer[]`. */
  type: string;
  /** Its type's labels when it is an enum. */
  labels: string[] | null;
}

/** A row to insert into `table`: its columns, each with its type and value. */
export interface GeneratedRow {
  table: TenantTable;
  columns: Array<{ name: string; type: string; value: unknown }>;
}

/**
 * Every table with a `tenant_id` column in any schema but Postgres' own, as pg_catalog lists
 * them: a table a migration adds tomorrow is in the list without anyone naming it.
 */
export async function tenantTables(admin: pg.Client): Promise<TenantTable[]> {
  const { rows } = await admin.query<TenantTable>(
    `select n.nspname as schema, c.relname as table, format('%s.%s', n.nspname, c.relname) as name
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
      where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
      order by 1, 2`,
  );
  return rows;
}

async function requiredColumns(admin: pg.Client, table: TenantTable): Promise<{ columns: RequiredColumn[]; checks: string[] }> {
  const { rows: columns } = await admin.query<RequiredColumn>(
    `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
            case when t.typtype = 'e' then array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) end as labels
       from pg_attribute a join pg_type t on t.oid = a.atttypid
      where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped
        and a.attnotnull and not a.atthasdef and a.attidentity = '' and a.attgenerated = ''
      order by a.attnum`,
    [table.name],
  );
  const { rows: checks } = await admin.query<{ def: string }>(
    `select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = $1::regclass and contype = 'c'`,
    [table.name],
  );
  return { columns, checks: checks.map((check) => check.def) };
}

/**
 * The first value a check constraint allows, if there is one: `(column = ANY (ARRAY['A'::text, ...]))`,
 * or `(column = 'A'::text)` (how Postgres writes an `IN` of one value).
 */
function allowedByCheck(column: string, checks: string[]): string | undefined {
  const oneOf = new RegExp(`\\(${column} = ANY \\(ARRAY\\['([^']*)'`);
  // Only a constraint that is this one equality: in a larger one, the value may be what it forbids.
  const only = new RegExp(`^CHECK \\(\\(${column} = '([^']*)'::text\\)\\)$`);
  for (const check of checks) {
    const found = oneOf.exec(check) ?? only.exec(check);
    if (found) return found[1];
  }
  return undefined;
}

/** A value of `column`'s type that its check constraints accept; throws for a type it does not know. */
function valueFor(table: TenantTable, column: RequiredColumn, checks: string[]): unknown {
  if (column.labels) return column.labels[0];
  if (column.type.endsWith('[]')) return '{}';
  const type = column.type.replace(/\(.*\)$/, '');
  switch (type) {
    case 'uuid':
      return randomUUID();
    case 'text':
    case 'character varying':
      return allowedByCheck(column.name, checks) ?? `seed-${randomBytes(4).toString('hex')}`;
    case 'smallint':
    case 'integer':
    case 'bigint':
      return 1 + randomBytes(2).readUInt16BE();
    case 'double precision':
    case 'real':
    case 'numeric':
      return 1;
    case 'boolean':
      return false;
    case 'timestamp with time zone':
    case 'timestamp without time zone':
    case 'date':
      return new Date().toISOString();
    case 'json':
    case 'jsonb':
      return '{}';
    case 'bytea':
      return Buffer.from([0]);
    case 'tsvector':
      return '';
    default:
      throw new Error(`${table.name}.${column.name}: no generated value for type ${column.type}; teach test/support/tenant-rows.ts`);
  }
}

/**
 * A minimal row of `table` for `tenantId`, generated from pg_catalog: every column that needs a
 * value gets one of its type (the first a check constraint allows, for text), all others their
 * default or null. Foreign keys are not followed: insert it where they are not checked
 * (`session_replication_role = replica`), or expect it refused before they are.
 */
export async function generatedRow(admin: pg.Client, table: TenantTable, tenantId: string): Promise<GeneratedRow> {
  const { columns, checks } = await requiredColumns(admin, table);
  return {
    table,
    columns: columns.map((column) => ({
      name: column.name,
      type: column.type,
      value: column.name === 'tenant_id' ? tenantId : valueFor(table, column, checks),
    })),
  };
}

/** The statement that inserts `row`, with `$n` parameters cast to the columns' types. */
export function insertStatement(row: GeneratedRow): { text: string; values: unknown[] } {
  const names = row.columns.map((column) => `"${column.name}"`).join(', ');
  const casts = row.columns.map((column, i) => `$${i + 1}::${column.type}`).join(', ');
  return { text: `insert into ${row.table.name} (${names}) values (${casts})`, values: row.columns.map((column) => column.value) };
}

/**
 * Inserts one generated row per table and tenant as the server's administrator (a superuser,
 * whom row-level security does not restrict), with foreign keys and triggers off for the
 * transaction (`session_replication_role = replica`): rows for a check, not a consistent catalog.
 */
export async function seedTenantRows(admin: pg.Client, tables: TenantTable[], tenants: string[]): Promise<void> {
  await admin.query('begin');
  try {
    await admin.query('set local session_replication_role = replica');
    for (const table of tables) {
      for (const tenant of tenants) {
        const { text, values } = insertStatement(await generatedRow(admin, table, tenant));
        await admin.query(text, values);
      }
    }
    await admin.query('commit');
  } catch (error) {
    await admin.query('rollback');
    throw error;
  }
}
