import { parseCursorState, type CursorStore } from './cursor-store.js';

/** What the store needs of a Postgres client: `query` of node-postgres (a `pg.Pool`, `pg.Client` or a transaction's client). */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

export interface PostgresCursorStore extends CursorStore {
  /** Creates the table when it is missing. */
  ensureTable(): Promise<void>;
  /**
   * Saves through `client` (e.g. inside the transaction that applied the page): the page's effects
   * and its cursor commit together, so a crash can neither lose the page nor apply it twice.
   */
  save(key: string, state: { cursor: string | null; recentIds: string[] }, client?: Queryable): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;

/**
 * A cursor store in a Postgres table (default `catalog_feed_cursors`): one row per key, written
 * by an upsert, which is durable once its transaction commits.
 */
export function postgresCursorStore(db: Queryable, options: { table?: string } = {}): PostgresCursorStore {
  const table = options.table ?? 'catalog_feed_cursors';
  if (!IDENTIFIER.test(table)) throw new Error(`invalid table name ${JSON.stringify(table)}`);
  return {
    async ensureTable() {
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
           consumer_key text PRIMARY KEY,
           cursor text,
           recent_ids jsonb NOT NULL,
           updated_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
    },
    async load(key) {
      const { rows } = await db.query(`SELECT cursor, recent_ids FROM ${table} WHERE consumer_key = $1`, [key]);
      const row = rows[0];
      return row ? parseCursorState({ cursor: row.cursor, recentIds: row.recent_ids }) : null;
    },
    async save(key, state, client = db) {
      await client.query(
        `INSERT INTO ${table} (consumer_key, cursor, recent_ids, updated_at) VALUES ($1, $2, $3::jsonb, now())
         ON CONFLICT (consumer_key) DO UPDATE SET cursor = EXCLUDED.cursor, recent_ids = EXCLUDED.recent_ids, updated_at = now()`,
        [key, state.cursor, JSON.stringify(state.recentIds)],
      );
    },
  };
}
