import { envelopeJson, JsonText, type EventEnvelope, type Kysely } from '@catalog/platform';
import type { FeedCursors } from './cursor.js';
import { readFeedRows } from './query.js';

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
 * One page of a tenant's feed, as the JSON text of a `FeedPage`: the rows are read as text and
 * spliced into JSON, with no parsing of `data` and no second serialisation (a full page is ~200 KB).
 * The cursor is the position of the page's last event in the tenant's whole feed (whatever the
 * types filter), so a client that changes its filter and keeps its cursor continues from the same
 * point and never gets earlier events of newly selected types.
 */
export async function readFeedPage(db: Kysely<any>, cursors: FeedCursors, request: FeedPageRequest): Promise<JsonText> {
  const after = request.after === null ? null : cursors.decode(request.tenantId, request.after);
  const rows = await readFeedRows(db, {
    tenantId: request.tenantId,
    product: request.product,
    types: request.types,
    after,
    take: request.limit + 1,
  });
  const hasMore = rows.length > request.limit;
  const page = rows.slice(0, request.limit);
  const last = page[page.length - 1];
  const nextCursor = last ? cursors.encode(request.tenantId, { tx: last.tx, id: last.id }) : null;
  return new JsonText(`{"events":[${page.map(envelopeJson).join(',')}],"nextCursor":${JSON.stringify(nextCursor)},"hasMore":${hasMore}}`);
}

