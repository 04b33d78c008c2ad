import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The tenant feed. `tx_id` is the id of the transaction that inserted the row; pages are read in
 * `(tx_id, id)` order and only below the oldest open transaction. Frozen in time.
 */
export const feed: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE events.feed (
        tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        id uuid NOT NULL,
        tenant_id uuid NOT NULL,
        product text NOT NULL,
        type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        resource_kind text NOT NULL,
        resource_id uuid,
        dmrn text,
        source_system text NOT NULL,
        batch_id uuid NOT NULL,
        schema_version integer NOT NULL,
        data jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (id)
      )`.execute(db);
    await sql`CREATE INDEX feed_page ON events.feed (tenant_id, product, tx_id, id)`.execute(db);
    await sql`CREATE INDEX feed_page_by_type ON events.feed (tenant_id, product, type, tx_id, id)`.execute(db);
  },
};
