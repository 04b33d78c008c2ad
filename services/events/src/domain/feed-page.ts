import { JsonText, type EventEnvelope, type Kysely } from '@catalog/platform';
import { readFeedPageRows } from '../persistence/feed-page.js';
import type { EventsDb } from '../persistence/tables.js';
import type { FeedCursors } from './feed-cursor.js';

/** Room for what surrounds the events in a page: `{"events":[`, the cursor, `hasMore`. */
const PAGE_FRAME_BYTES = 1024;

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
  /** Bytes the page may take (the bus reply's budget): it ends early, `hasMore` true, past them. */
  maxBytes: number;
}

/**
 * One page of a tenant's feed, as the JSON text of a `FeedPage`. Each event's JSON is stored with
 * it when the feed writer inserts it; Postgres joins a page's worth and the page is spliced around
 * that text, so no event is read, parsed or serialised here (a full page is ~200 KB). A page also
 * ends before its events exceed `maxBytes` (decision 0052); the writer stores no event larger
 * than 64 KiB, so a page always holds at least one.
 * The cursor is the position of the page's last event in the tenant's whole feed (whatever the
 * types filter), so a client that changes its filter and keeps its cursor continues from the same
 * point and never gets earlier events of newly selected types.
 */
export async function readFeedPage(db: Kysely<EventsDb>, cursors: FeedCursors, request: FeedPageRequest): Promise<JsonText> {
  const after = request.after === null ? null : cursors.decode(request.tenantId, request.after);
  const page = await readFeedPageRows(db, {
    tenantId: request.tenantId,
    product: request.product,
    types: request.types,
    after,
    limit: request.limit,
    maxBytes: request.maxBytes - PAGE_FRAME_BYTES,
  });
  const nextCursor = page.last ? cursors.encode(request.tenantId, page.last) : null;
  return new JsonText(`{"events":[${page.eventsJson}],"nextCursor":${JSON.stringify(nextCursor)},"hasMore":${page.hasMore}}`);
}
