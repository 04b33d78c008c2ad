import { JsonText, type EventEnvelope, type Kysely } from '@catalog/platform';
import type { FeedCursors } from './cursor.js';
import { readFeedPageRows } from './query.js';

/** An event as the feed returns it (part 6 of the interface). */
export type FeedEvent = EventEnvelope;

/** A page as clients read it (`readFeedPage` returns it as JSON text). */
export interface FeedPage {
  events: FeedEvent[];
  nextCursor: string | null;
  hasMore: boolean;
}

export interface FeedPageRequest {
  tenantId: string;
  product: string;
  limit: number;
  types: string[] | null;
  /** The `after` cursor as sent, if any. */
  after: string | null;
}

/**
 * One page of a tenant's feed, as the JSON text of a `FeedPage`. Each event's JSON is stored with
 * it when the feed writer inserts it; Postgres joins a page's worth and the page is spliced around
 * that text, so no event is read, parsed or serialised here (a full page is ~200 KB).
 * The cursor is the position of the page's last event in the tenant's whole feed (whatever the
 * types filter), so a client that changes its filter and keeps its cursor continues from the same
 * point and never gets earlier events of newly selected types.
 */
export async function readFeedPage(db: Kysely<any>, cursors: FeedCursors, request: FeedPageRequest): Promise<JsonText> {
  const after = request.after === null ? null : cursors.decode(request.tenantId, request.after);
  const page = await readFeedPageRows(db, {
    tenantId: request.tenantId,
    product: request.product,
    types: request.types,
    after,
    limit: request.limit,
  });
  const nextCursor = page.last ? cursors.encode(request.tenantId, page.last) : null;
  return new JsonText(`{"events":[${page.eventsJson}],"nextCursor":${JSON.stringify(nextCursor)},"hasMore":${page.hasMore}}`);
}
