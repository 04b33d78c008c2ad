import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The feed writer's position in the events stream, committed with the rows it inserts, and
 * row-level security on the feed: a reader sees only the rows of the tenant set for its
 * transaction; the writer inserts rows of every tenant. Frozen in time.
 */
export const feedWriter: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE events.stream_position (
        consumer text PRIMARY KEY,
        stream_created text NOT NULL,
        last_seq bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
    await sql`ALTER TABLE events.feed ENABLE ROW LEVEL SECURITY`.execute(db);
    await sql`ALTER TABLE events.feed FORCE ROW LEVEL SECURITY`.execute(db);
    await sql`
      CREATE POLICY feed_tenant_read ON events.feed FOR SELECT
        USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)`.execute(db);
    await sql`CREATE POLICY feed_writer_insert ON events.feed FOR INSERT WITH CHECK (true)`.execute(db);
  },
};
