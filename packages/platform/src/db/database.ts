import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';

export { sql, type Kysely, type Transaction } from 'kysely';

export interface DatabaseSettings {
  url: string;
  /** The service's own schema: every query built by Kysely is qualified with it. */
  schema: string;
  /**
   * The role queries run as. Tables are owned by the migration role; the service works as a role
   * that does not own them, so row-level security applies (owners and superusers bypass it).
   */
  role: string;
  poolSize?: number;
  applicationName?: string;
  /**
   * Told when Postgres ends an idle pooled connection (restart, failover, termination). The pool
   * replaces the connection itself; without a listener the event would crash the process.
   */
  onIdleConnectionError?: (error: Error) => void;
}

export interface Database<DB> {
  db: Kysely<DB>;
  pool: pg.Pool;
  close(): Promise<void>;
}

// Parse int8 (bigint) and numeric as strings are kept; timestamps as Date (pg default).
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a safe SQL identifier: ${name}`);
  return name;
}

export function createDatabase<DB>(settings: DatabaseSettings): Database<DB> {
  const role = assertIdentifier(settings.role);
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: settings.poolSize ?? 10,
    application_name: settings.applicationName ?? settings.schema,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', (error) => settings.onIdleConnectionError?.(error));
  // Queued on the new client before any other query, so every connection works as the app role.
  pool.on('connect', (client) => {
    client.query(`SET ROLE ${role}`).catch(() => undefined);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }).withSchema(assertIdentifier(settings.schema));
  return {
    db,
    pool,
    async close() {
      await db.destroy();
    },
  };
}

/**
 * Runs `fn` in a transaction bound to one tenant: `app.tenant_id` is set for that transaction
 * only, and the row-level security policies of tenant tables read it.
 */
export async function inTenantTransaction<DB, T>(
  db: Kysely<DB>,
  tenantId: string,
  fn: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.tenant_id', ${tenantId}, true)`.execute(trx);
    return fn(trx);
  });
}

/** Answers when the database accepts a query; used by readiness checks. */
export async function pingDatabase(db: Kysely<unknown>): Promise<void> {
  await sql`select 1`.execute(db);
}
