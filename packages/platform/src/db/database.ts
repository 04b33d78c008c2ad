import { AsyncLocalStorage } from 'node:async_hooks';
import { Kysely, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { isUuid } from '../support/ids.js';
import { isRefusedNamedStatement, namingPostgresDialect } from './prepared-statements.js';

export { sql, type Kysely, type Transaction } from 'kysely';

export interface DatabaseSettings {
  url: string;
  /** The service's own schema: every query built by Kysely is qualified with it. */
  schema: string;
  /**
   * A role to `SET ROLE` to on every new connection (a connection where that fails is never
   * used), for tests and tools that log in as an administrator. Services leave it unset: they log
   * in as their own role (`<schema>_app`, decision 0057), which owns no table, so row-level
   * security applies (owners and superusers bypass it); `startServiceRuntime` checks that.
   */
  role?: string;
  poolSize?: number;
  /** Postgres cancels a statement running longer than this (`statement_timeout`); unset: never. */
  statementTimeoutMs?: number;
  /** Postgres ends a session idle inside a transaction this long (`idle_in_transaction_session_timeout`); unset: never. */
  idleInTransactionTimeoutMs?: number;
  applicationName?: string;
  /**
   * Name (prepare) the parameterised statements Kysely runs on each connection (decisions 0009,
   * 0110, 0158), at most this many distinct ones per connection; 0 turns it off. Default 200.
   */
  preparedStatementsPerConnection?: number;
  /**
   * Told when Postgres ends a pooled connection outside a query: idle in the pool (restart,
   * failover, termination) or held by a transaction idle too long. The pool replaces the
   * connection itself; without a listener the event would crash the process.
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

/** The tenant of the code running now, as set by `inTenantTransaction` / `inTenantScope`. */
const currentTenant = new AsyncLocalStorage<string>();
const SESSION_TENANT = Symbol('sessionTenant');
const SESSION_ROLE = Symbol('sessionRole');
const CHECKED_OUT = Symbol('checkedOut');
type TrackedClient = pg.PoolClient & { [SESSION_TENANT]?: string; [SESSION_ROLE]?: true; [CHECKED_OUT]?: boolean };

/**
 * A pool that hands out connections whose `app.tenant_id` (a session setting read by the
 * row-level security policies) is exactly the tenant of the calling context, or empty outside
 * any tenant context. Each connection remembers its setting, so a connection that already serves
 * the tenant costs no extra round trip: a tenant-scoped read is one round trip, not four
 * (BEGIN, set_config, SELECT, COMMIT).
 */
type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: any) => void) => void;

class TenantScopedPool extends pg.Pool {
  role: string | undefined;

  /**
   * pg-pool hands out its most recently released idle connection. Before it does, an idle
   * connection that already serves `tenant` is moved to that place, so requests of several
   * tenants (and the tenant-less work of relays and consumers) each keep finding a connection set
   * up for them instead of paying a `set_config` round trip. Only a preference: pg-pool's idle
   * list is internal, and if its shape ever changes this does nothing.
   */
  private preferIdleConnectionOf(tenant: string): void {
    const idle = (this as unknown as { _idle?: unknown })._idle;
    if (!Array.isArray(idle) || idle.length < 2) return;
    const servesTenant = (item: unknown): boolean => (item as { client?: TrackedClient })?.client?.[SESSION_TENANT] === tenant;
    if (servesTenant(idle[idle.length - 1])) return;
    for (let i = idle.length - 2; i >= 0; i -= 1) {
      if (servesTenant(idle[i])) {
        idle.push(idle.splice(i, 1)[0]);
        return;
      }
    }
  }

  /**
   * pg-pool listens for errors of idle connections only. A connection Postgres ends while it is
   * checked out (a transaction left idle past `idle_in_transaction_session_timeout`, a terminated
   * backend) would emit an unhandled 'error' and end the process: it is reported as the pool's
   * 'error' instead, and its next query fails.
   */
  private reportErrorsWhileCheckedOut(client: TrackedClient): void {
    if (client[CHECKED_OUT] === undefined) client.on('error', (error) => client[CHECKED_OUT] && this.emit('error', error, client));
    client[CHECKED_OUT] = true;
    // pg-pool gives the client a new release function each time it hands it out.
    const release = client.release;
    client.release = (error?: Error | boolean) => {
      client[CHECKED_OUT] = false;
      return release(error);
    };
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const wanted = currentTenant.getStore() ?? '';
    this.preferIdleConnectionOf(wanted);
    const connected = super.connect().then(async (client: TrackedClient) => {
      this.reportErrorsWhileCheckedOut(client);
      try {
        // A new connection works as the app role before anything else runs on it; if that fails
        // the connection is discarded and the caller gets the error (never a connection that
        // might bypass row-level security).
        if (this.role && !client[SESSION_ROLE]) {
          await client.query(`SET ROLE ${this.role}`);
          client[SESSION_ROLE] = true;
        }
        if (client[SESSION_TENANT] !== wanted) {
          await client.query("select set_config('app.tenant_id', $1, false)", [wanted]);
          client[SESSION_TENANT] = wanted;
        }
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      return client;
    });
    if (!callback) return connected;
    // pool.query() uses the callback form.
    connected.then(
      (client) => callback(undefined, client, (release?: any) => client.release(release)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }
}

/** Longest message a connection error's log line keeps. */
const MAX_CONNECTION_ERROR_MESSAGE = 300;

/**
 * What a log line says of a pooled connection's error: its message and code, never the error
 * itself, to which pg-pool attaches the whole client (connection parameters, the text of every
 * statement it prepared, internal state: some 5 KB a line, on every service at each Postgres restart).
 */
export function connectionErrorSummary(error: unknown): { message: string; code?: string } {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { message?: unknown; code?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  return {
    message: message.length > MAX_CONNECTION_ERROR_MESSAGE ? `${message.slice(0, MAX_CONNECTION_ERROR_MESSAGE - 3)}...` : message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
  };
}

export function createDatabase<DB>(settings: DatabaseSettings): Database<DB> {
  const pool = new TenantScopedPool({
    connectionString: settings.url,
    max: settings.poolSize ?? 10,
    application_name: settings.applicationName ?? settings.schema,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    // Sent with the start-up message, so they hold from the connection's first statement.
    ...(settings.statementTimeoutMs ? { statement_timeout: settings.statementTimeoutMs } : {}),
    ...(settings.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs } : {}),
  });
  pool.role = settings.role === undefined ? undefined : assertIdentifier(settings.role);
  pool.on('error', (error) => settings.onIdleConnectionError?.(error));
  const dialect = namingPostgresDialect(pool, { maxPerConnection: settings.preparedStatementsPerConnection ?? 200 });
  const db = new Kysely<DB>({ dialect }).withSchema(assertIdentifier(settings.schema));
  return {
    db,
    pool,
    async close() {
      await db.destroy();
    },
  };
}

function tenantOrThrow(tenantId: string): string {
  if (!isUuid(tenantId)) throw new Error('tenant id must be a UUID');
  return tenantId;
}

/**
 * Runs `fn` in a transaction bound to one tenant: every connection it uses has `app.tenant_id`
 * set to the tenant, which the row-level security policies of tenant tables read. Needs a
 * database made by `createDatabase`; elsewhere the policies see no tenant and no rows.
 */
export async function inTenantTransaction<DB, T>(db: Kysely<DB>, tenantId: string, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return currentTenant.run(tenantOrThrow(tenantId), () => runTransaction(db, fn));
}

/** Each refusal names one more text unnamed for good, so the attempts end; this only bounds them. */
const MAX_TRANSACTION_ATTEMPTS = 10;

/**
 * Runs `fn` in a transaction, and again when Postgres refused one of its named statements (after
 * a migration changed a table it reads, say; decision 0110): the refused text then goes unnamed,
 * so the next attempt gets past it. `fn` must therefore only read and write through `trx` (no
 * transaction holds a bus call or other work outside the database anyway).
 */
export async function runTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(fn);
    } catch (error) {
      if (!isRefusedNamedStatement(error) || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
    }
  }
}

/**
 * Runs `fn` with queries bound to one tenant, without a transaction: for reads that are a single
 * statement (or need no snapshot across statements).
 */
export async function inTenantScope<DB, T>(db: Kysely<DB>, tenantId: string, fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return currentTenant.run(tenantOrThrow(tenantId), () => fn(db));
}

/** Runs `fn` outside any tenant context (connections it uses see no tenant rows). */
export async function withoutTenant<T>(fn: () => Promise<T>): Promise<T> {
  return currentTenant.exit(fn);
}

/** Answers when the database accepts a query; used by readiness checks. */
export async function pingDatabase(db: Kysely<unknown>): Promise<void> {
  await sql`select 1`.execute(db);
}
