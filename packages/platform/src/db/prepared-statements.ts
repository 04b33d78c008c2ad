import { createHash } from 'node:crypto';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type Transaction,
  type TransactionSettings,
  type UnknownRow,
} from 'kysely';
import type pg from 'pg';
import { sendQuery } from './send-query.js';

/**
 * Named prepared statements for the parameterised queries Kysely runs (decisions 0009, 0110, 0158).
 *
 * node-postgres sends a parameterised query unnamed, so Postgres parses and plans it on every
 * execution; named, it is parsed once per connection and its plan can be reused. The dialect's
 * driver (not a patched client) sends each parameterised statement named by a hash of its text,
 * at most `maxPerConnection` texts per connection (query builders produce a bounded set of texts,
 * but IN-lists and multi-row inserts of varying length do not). It knows a transaction from
 * Kysely's own begin, commit and rollback calls. A statement run through `unprepared(db)` is
 * never named. Statements sent on the pool itself (`pool.query`) are named only where the caller
 * names them (`{ name, text, values }`, the gateway's key lookups).
 *
 * Postgres may refuse a named statement: "cached plan must not change result type" (0A000, after
 * a migration adds a column to a table read with `*`), "prepared statement does not exist"
 * (26000) and "already exists" (42P05) (a pooler in transaction mode moving the session). Such a
 * text is never named again in this process. Outside a transaction the statement is run again
 * unnamed at once. Inside one the refusal has aborted the transaction: the error is marked
 * (`isRefusedNamedStatement`) and `runTransaction` runs the whole transaction again (decision 0110).
 */
export interface PreparedStatementSettings {
  /** Texts each connection names at most; 0: none. */
  maxPerConnection: number;
}

const REFUSED_IN_TRANSACTION = Symbol('namedStatementRefusedInTransaction');
const RETRY_UNNAMED = new Set(['0A000', '26000', '42P05']);
const MAX_REMEMBERED_NAMES = 5_000;

/** Statement names by text, for the whole process (every connection names a text alike). */
const names = new Map<string, string>();
/** Texts Postgres refused to run named: sent unnamed from then on, on every connection. */
const refused = new Set<string>();
/** Queries built through `unprepared(db)`. */
const unnamedQueries = new WeakSet<QueryId>();

/** Whether `error` is Postgres refusing a named statement inside a transaction, which then runs again. */
export function isRefusedNamedStatement(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { [REFUSED_IN_TRANSACTION]?: true })[REFUSED_IN_TRANSACTION] === true;
}

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `q${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
    if (names.size < MAX_REMEMBERED_NAMES) names.set(text, name);
  }
  return name;
}

const UNPREPARED: KyselyPlugin = {
  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    unnamedQueries.add(queryId);
    return node;
  },
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  },
};

/**
 * `db` whose statements are never named: for one whose best plan depends on its values (a
 * search), which the generic plan Postgres may choose after five runs of a named statement would
 * ignore (decisions 0105, 0110).
 */
export function unprepared<DB>(db: Transaction<DB>): Transaction<DB>;
export function unprepared<DB>(db: Kysely<DB>): Kysely<DB>;
export function unprepared<DB>(db: Kysely<DB>): Kysely<DB> {
  return db.withPlugin(UNPREPARED);
}

/** One pooled connection as Kysely uses it: the texts it named, and whether a transaction is open on it. */
class NamingConnection implements DatabaseConnection {
  readonly named = new Set<string>();
  inTransaction = false;

  constructor(
    readonly client: pg.PoolClient,
    private readonly settings: PreparedStatementSettings,
  ) {}

  /** The name to send `query` under, or null to send it unnamed. */
  private nameOf(query: CompiledQuery): string | null {
    if (query.parameters.length === 0 || unnamedQueries.has(query.queryId)) return null;
    const name = statementName(query.sql);
    if (refused.has(name) || (!this.named.has(name) && this.named.size >= this.settings.maxPerConnection)) return null;
    return name;
  }

  private async run(query: CompiledQuery): Promise<pg.QueryResult> {
    const values = [...query.parameters];
    const name = this.nameOf(query);
    if (name === null) return sendQuery(this.client, { text: query.sql, values });
    this.named.add(name);
    try {
      return await sendQuery(this.client, { name, text: query.sql, values });
    } catch (error) {
      if (!RETRY_UNNAMED.has((error as { code?: string })?.code ?? '')) throw error;
      this.named.delete(name);
      if (refused.size < MAX_REMEMBERED_NAMES) refused.add(name);
      if (!this.inTransaction) return sendQuery(this.client, { text: query.sql, values });
      (error as { [REFUSED_IN_TRANSACTION]?: true })[REFUSED_IN_TRANSACTION] = true;
      throw error;
    }
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { command, rowCount, rows } = await this.run(query);
    const changed = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { ...(changed ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}), rows: (rows ?? []) as R[] };
  }

  /** No query of the services streams; Kysely's own driver refuses it without a cursor too. */
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries is not supported');
  }
}

/** Kysely's Postgres driver, with statements named as above. Savepoints are not supported (no transaction uses them). */
class NamingPostgresDriver implements Driver {
  /** One per pooled client, kept while the pool keeps the client (the names live as long as its session). */
  private readonly connections = new WeakMap<pg.PoolClient, NamingConnection>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: PreparedStatementSettings,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    let connection = this.connections.get(client);
    if (!connection) {
      connection = new NamingConnection(client, this.settings);
      this.connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const modes = [
      ...(settings.isolationLevel ? [`isolation level ${settings.isolationLevel}`] : []),
      ...(settings.accessMode ? [settings.accessMode] : []),
    ];
    await connection.executeQuery(CompiledQuery.raw(modes.length > 0 ? `start transaction ${modes.join(' ')}` : 'begin'));
    (connection as NamingConnection).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.end(connection, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.end(connection, 'rollback');
  }

  private async end(connection: DatabaseConnection, how: 'commit' | 'rollback'): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw(how));
    } finally {
      (connection as NamingConnection).inTransaction = false;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as NamingConnection).client.release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

/** Kysely's Postgres dialect on `pool`, its parameterised statements named (at most `settings.maxPerConnection` per connection). */
export function namingPostgresDialect(pool: pg.Pool, settings: PreparedStatementSettings): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new NamingPostgresDriver(pool, settings),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}
