import { envelopeTextColumnsSql, inTenantScope, sql, type EventEnvelopeTextRow, type Kysely } from '@catalog/platform';
import type { FeedPosition } from './cursor.js';

/** A feed row as a page needs it: its position, and its envelope's columns as text. */
export interface FeedRow extends EventEnvelopeTextRow {
  tx: string;
}

export interface FeedPageQuery {
  tenantId: string;
  product: string;
  /** null: every type. */
  types: string[] | null;
  after: FeedPosition | null;
  /** Rows to read (the page size plus one, to know whether there is more). */
  take: number;
}

const COLUMNS = sql.raw(`f.tx_id::text as tx, ${envelopeTextColumnsSql('f')}`);

/**
 * Reads feed rows of one tenant and product in `(tx_id, id)` order after a position.
 *
 * Only rows whose transaction id is below the xmin of this statement's own snapshot are returned:
 * every transaction below it has finished, so a row that is not visible yet (its transaction is
 * still open) can never be overtaken by a later one and skipped by a client's cursor.
 *
 * With a types filter, each type is read through the `(tenant_id, product, type, tx_id, id)` index
 * in order and limited, and the (small) union is merged: the cost follows the page size, not the
 * number of rows of other types.
 */
export async function readFeedRows(db: Kysely<any>, q: FeedPageQuery): Promise<FeedRow[]> {
  const after = q.after ? sql`and (f.tx_id, f.id) > (${q.after.tx}::xid8, ${q.after.id}::uuid)` : sql``;
  const visible = sql`f.tx_id < (select pg_snapshot_xmin(pg_current_snapshot()))`;
  // One statement, so no transaction: outside one, the pool prepares it (decision 0009).
  return inTenantScope(db, q.tenantId, async (trx) => {
    if (q.types === null) {
      const { rows } = await sql<FeedRow>`
        select ${COLUMNS}
          from events.feed f
         where f.tenant_id = ${q.tenantId} and f.product = ${q.product} and ${visible} ${after}
         order by f.tx_id, f.id
         limit ${q.take}`.execute(trx);
      return rows;
    }
    const { rows } = await sql<FeedRow>`
      select f.* from unnest(${q.types}::text[]) as t(type)
       cross join lateral (
         select ${COLUMNS}
           from events.feed f
          where f.tenant_id = ${q.tenantId} and f.product = ${q.product} and f.type = t.type and ${visible} ${after}
          order by f.tx_id, f.id
          limit ${q.take}) as f
       order by f.tx::xid8, f.id
       limit ${q.take}`.execute(trx);
    return rows;
  });
}
