import { runTransaction, sql, type Kysely } from '@catalog/platform';
import type { EventsDb } from './tables.js';

/** Longest one batch's delete may run: a batch is meant to be short. */
const BATCH_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * Deletes at most `limit` feed rows received more than `retentionDays` ago, oldest first, in one
 * short transaction; returns how many. Row-level security admits it only outside any tenant's
 * context and with `app.feed_pruning` set for the transaction (migration 0005), so it runs on a
 * connection bound to no tenant.
 */
export async function deleteExpiredFeedRows(db: Kysely<EventsDb>, retentionDays: number, limit: number): Promise<number> {
  return runTransaction(db, async (trx) => {
    await sql`select set_config('app.feed_pruning', 'on', true), set_config('statement_timeout', ${String(BATCH_STATEMENT_TIMEOUT_MS)}, true)`.execute(
      trx,
    );
    const result = await sql`
      delete from events.feed where id in (
        select id from events.feed
         where received_at < now() - make_interval(days => ${retentionDays})
         order by received_at
         limit ${limit})`.execute(trx);
    return Number(result.numAffectedRows ?? 0n);
  });
}
