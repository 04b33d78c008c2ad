import { Kysely, Migrator, PostgresDialect, sql, type Migration } from 'kysely';
import pg from 'pg';
import type { Logger } from '../observability/logger.js';
import { sleep } from '../support/sleep.js';
import { assertIdentifier, connectionErrorSummary } from './database.js';

export type { Migration } from 'kysely';
export type Migrations = Record<string, Migration>;

export interface MigrateSettings {
  url: string;
  schema: string;
  role: string;
  migrations: Migrations;
  logger?: Logger;
}

/**
 * Applies a service's migrations to its own schema (as the owning role), then makes sure the
 * service's working role exists and may read and write the schema's tables but owns none of them.
 * The migration history lives in the service schema, so each service migrates independently.
 */
export async function migrateSchema(settings: MigrateSettings): Promise<string[]> {
  const schema = assertIdentifier(settings.schema);
  const role = assertIdentifier(settings.role);
  const pool = new pg.Pool({ connectionString: settings.url, max: 1, application_name: `migrate:${schema}` });
  const closed = connectionsClosed(pool);
  // The server may end the connection once the work is done (a restart, a dropped database): no failure of the migration.
  pool.on('error', (error) => settings.logger?.warn({ schema, error: connectionErrorSummary(error) }, 'migration connection lost'));
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    // Replicas starting together migrate one schema in turns: the role, the schema, the migrations
    // and the grants all under one lock, as concurrent CREATE SCHEMA IF NOT EXISTS or GRANT on one
    // object fail with a duplicate key or "tuple concurrently updated".
    const applied = await db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(hashtext(${`migrate:${schema}`}))`.execute(conn);
      try {
        await ensureRole(conn, role);
        await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${schema}`).execute(conn);
        const migrator = new Migrator({
          db: conn.withSchema(schema) as Kysely<unknown>,
          provider: { getMigrations: async () => settings.migrations },
          migrationTableSchema: schema,
        });
        const { error, results } = await migrator.migrateToLatest();
        if (error) throw error instanceof Error ? error : new Error(String(error));
        await grantWorkingRole(conn, schema, role);
        return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
      } finally {
        await sql`select pg_advisory_unlock(hashtext(${`migrate:${schema}`}))`.execute(conn);
      }
    });
    for (const name of applied) settings.logger?.info({ schema, migration: name }, 'migration applied');
    return applied;
  } finally {
    await db.destroy();
    await closed();
  }
}

/** Longest `migrateSchema` waits for its ended connection to close. */
const CLOSE_WAIT_MS = 5_000;

/**
 * Resolves, once called, when every connection `pool` opened has closed (or after CLOSE_WAIT_MS):
 * `pool.end()` resolves before its connections have, and a caller may drop the database or stop
 * the server next.
 */
function connectionsClosed(pool: pg.Pool): () => Promise<void> {
  let open = 0;
  let settle: (() => void) | null = null;
  pool.on('connect', () => (open += 1));
  pool.on('remove', () => {
    open -= 1;
    if (open === 0) settle?.();
  });
  return async () => {
    if (open === 0) return;
    const stop = new AbortController();
    await Promise.race([new Promise<void>((resolve) => (settle = resolve)), sleep(CLOSE_WAIT_MS, stop.signal)]);
    stop.abort();
  };
}

/** The working role may read and write the schema's tables and sequences, never the migration history. */
async function grantWorkingRole(db: Kysely<unknown>, schema: string, role: string): Promise<void> {
  await sql
    .raw(
      [
        `GRANT USAGE ON SCHEMA ${schema} TO ${role}`,
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`,
        `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`,
        `REVOKE ALL ON ${schema}.kysely_migration, ${schema}.kysely_migration_lock FROM ${role}`,
      ].join(';\n'),
    )
    .execute(db);
}

async function ensureRole(db: Kysely<unknown>, role: string): Promise<void> {
  // Roles are cluster-wide; several migrators may race to create the same one.
  await sql
    .raw(
      `DO $$ BEGIN
         IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN
           CREATE ROLE ${role} NOLOGIN;
         END IF;
       EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
       END $$`,
    )
    .execute(db);
}

/**
 * SQL for a migration that puts a tenant table under row-level security: rows are visible and
 * writable only when `tenant_id` equals the transaction's `app.tenant_id`. FORCE makes the policy
 * apply to the table owner too. Frozen: later changes go in new functions, never edits here.
 */
export async function enableTenantRlsV1(db: Kysely<unknown>, schema: string, table: string): Promise<void> {
  const qualified = `${assertIdentifier(schema)}.${assertIdentifier(table)}`;
  await sql
    .raw(
      `ALTER TABLE ${qualified} ENABLE ROW LEVEL SECURITY;
       ALTER TABLE ${qualified} FORCE ROW LEVEL SECURITY;
       CREATE POLICY tenant_isolation ON ${qualified}
         USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
         WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)`,
    )
    .execute(db);
}

/**
 * SQL for a migration that puts a table the service also works on for every tenant at once (an
 * outbox its relay publishes, a queue its sweeper claims) under row-level security: code bound to a
 * tenant sees and writes only that tenant's rows, code outside any tenant's context (relays,
 * sweepers, consumers: `app.tenant_id` empty) every row. FORCE makes it apply to the owner too.
 * Frozen: later changes go in new functions, never edits here.
 */
export async function enableTenantOrSystemRlsV1(db: Kysely<unknown>, schema: string, table: string): Promise<void> {
  const qualified = `${assertIdentifier(schema)}.${assertIdentifier(table)}`;
  const tenant = `nullif(current_setting('app.tenant_id', true), '')`;
  await sql
    .raw(
      `ALTER TABLE ${qualified} ENABLE ROW LEVEL SECURITY;
       ALTER TABLE ${qualified} FORCE ROW LEVEL SECURITY;
       CREATE POLICY tenant_or_system ON ${qualified}
         USING (${tenant} IS NULL OR tenant_id = ${tenant}::uuid)
         WITH CHECK (${tenant} IS NULL OR tenant_id = ${tenant}::uuid)`,
    )
    .execute(db);
}
