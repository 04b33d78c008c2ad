import { CompiledQuery } from 'kysely';
import { inTenantScope, type Kysely } from '@catalog/platform';
import type { EventsDb } from './tables.js';

/** A position in one tenant's whole feed: the `(tx_id, id)` of the last event of a page. */
export interface FeedPosition {
  tx: string;
  id: string;
}

export interface FeedPageQuery {
  tenantId: string;
  product: string;
  /** null: every type. */
  types: string[] | null;
  after: FeedPosition | null;
  /** Events in the page. */
  limit: number;
  /**
   * Bytes the page's events may take (their JSON and a comma each): the page ends before the event
   * that would exceed them, though never before its first. Default: no bound but `limit`.
   */
  maxBytes?: number;
}

/** A page as Postgres assembles it. */
export interface FeedPageRows {
  /**
   * The page's events as the members of a JSON array, in parts of at most `EVENTS_PER_PART` events
   * each (comma-separated within a part; the parts are to be joined with commas; none when empty).
   */
  eventsJson: string[];
  hasMore: boolean;
  /** The position of the page's last event; null when the page is empty. */
  last: FeedPosition | null;
}

/**
 * The statement that reads one page (the bench runs it under EXPLAIN ANALYZE): `$1` tenant,
 * `$2` product, `$3` page size, `$4` byte budget, then the position (`$5` tx, `$6` id) when there
 * is one, then the types when filtered.
 *
 * - Order and visibility: rows in `(tx_id, id)` order after the position, and only below the xmin
 *   of the statement's own snapshot: every transaction below it has finished, so a row that is not
 *   visible yet (its transaction is still open) can never be overtaken by a later one and skipped
 *   by a client's cursor.
 * - With a types filter, each type is read through the `(tenant_id, product, type, tx_id, id)`
 *   index in order and limited, and the (small) union is merged: the cost follows the page size,
 *   not the number of rows of other types.
 * - A few rows come back: the stored JSON of the first `$3` events joined by commas, in parts of
 *   `EVENTS_PER_PART` events (one row each, in order), each with whether one more event follows
 *   and the last event's position. The events service splices that text into the page without
 *   reading a single event (decision 0034). Parts, not one text: a text of a whole page (~200 KB)
 *   is a string in V8's large-object space, which only a full collection frees; the events
 *   service then ran a full collection about every second, pausing its pages for up to 26 ms.
 */
/** Events per row of a page's text: a part of ~20 KB, an ordinary young string the scavenger frees. */
export const EVENTS_PER_PART = 50;

export function feedPageStatement(q: FeedPageQuery): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [q.tenantId, q.product, q.limit, q.maxBytes ?? Number.MAX_SAFE_INTEGER];
  let after = '';
  if (q.after) {
    parameters.push(q.after.tx, q.after.id);
    after = 'and (f.tx_id, f.id) > ($5::xid8, $6::uuid)';
  }
  const where = `f.tenant_id = $1 and f.product = $2
       and f.tx_id < (select pg_snapshot_xmin(pg_current_snapshot())) ${after}`;
  let rows: string;
  if (q.types === null) {
    rows = `
      select f.tx_id, f.id, f.body
        from events.feed f
       where ${where}
       order by f.tx_id, f.id
       limit $3::int + 1`;
  } else {
    parameters.push(q.types);
    rows = `
      select f.* from unnest($${parameters.length}::text[]) as t(type)
       cross join lateral (
         select f.tx_id, f.id, f.body
           from events.feed f
          where ${where} and f.type = t.type
          order by f.tx_id, f.id
          limit $3::int + 1) as f
       order by f.tx_id, f.id
       limit $3::int + 1`;
  }
  const sql = `
    with numbered as (
      select r.tx_id, r.id, r.body, row_number() over w as n, sum(octet_length(r.body) + 1) over w as bytes
        from (${rows}) as r
      window w as (order by r.tx_id, r.id rows between unbounded preceding and current row)
    ), shown as (
      select * from numbered where n <= $3::int and (n = 1 or bytes <= $4::bigint)
    )
    select part.events_json,
           exists (select from numbered where n > (select count(*) from shown)) as has_more,
           last.tx_id::text as last_tx, last.id as last_id
      from (select 1) as one
      left join lateral (select tx_id, id from shown order by n desc limit 1) as last on true
      left join lateral (
        select string_agg(body, ',' order by n) as events_json, (n - 1) / ${EVENTS_PER_PART} as part
          from shown group by part) as part on true
     order by part.part`;
  return { sql, parameters };
}

/** Reads one page of a tenant's feed (see `feedPageStatement`). */
export async function readFeedPageRows(db: Kysely<EventsDb>, q: FeedPageQuery): Promise<FeedPageRows> {
  const { sql, parameters } = feedPageStatement(q);
  // One statement, so no transaction: outside one, the pool prepares it (decision 0009).
  const { rows } = await inTenantScope(db, q.tenantId, (scoped) =>
    scoped.executeQuery<{ events_json: string | null; has_more: boolean; last_tx: string | null; last_id: string | null }>(
      CompiledQuery.raw(sql, parameters),
    ),
  );
  const row = rows[0]!;
  return {
    eventsJson: rows.flatMap((r) => (r.events_json === null ? [] : [r.events_json])),
    hasMore: row.has_more,
    last: row.last_tx !== null && row.last_id !== null ? { tx: row.last_tx, id: row.last_id } : null,
  };
}
