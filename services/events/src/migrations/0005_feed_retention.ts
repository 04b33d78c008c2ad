import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Lets the feed's pruner delete rows past the interface's 30-day replay window (decision 0168).
 * Every other feed index begins with `tenant_id`; the pruner finds old rows of every tenant by
 * `received_at`. Under row-level security a DELETE sees only the rows a SELECT policy shows it,
 * and outside any tenant's context the feed shows none; so one read and one delete policy admit
 * only a transaction outside any tenant's context that says it prunes (`app.feed_pruning` = on),
 * and only rows older than 30 days: code bound to a tenant deletes nothing, its own rows included,
 * and no setting can shorten the replay window. Frozen in time.
 */
export const feedRetention: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE INDEX feed_received_at ON events.feed (received_at)`.execute(db);
    const pruning = sql`nullif(current_setting('app.tenant_id', true), '') IS NULL
                    AND current_setting('app.feed_pruning', true) = 'on'
                    AND received_at < now() - interval '30 days'`;
    await sql`CREATE POLICY feed_pruner_read ON events.feed FOR SELECT USING (${pruning})`.execute(db);
    await sql`CREATE POLICY feed_pruner_delete ON events.feed FOR DELETE USING (${pruning})`.execute(db);
  },
};
