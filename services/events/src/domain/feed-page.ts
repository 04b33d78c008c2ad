import { JsonText, sleep, type EventEnvelope, type Kysely } from '@catalog/platform';
import { readFeedPageRows, type FeedPageRows } from '../persistence/feed-page.js';
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
  /** A long poll: with no event after the cursor, the page is read again until one is visible or the wait ends. */
  wait?: FeedWait;
}

export interface FeedWait {
  /** Longest the request is held (the `wait` parameter). */
  ms: number;
  /** Between two reads of an empty page. */
  pollMs: number;
  /** Ends the wait early (the service stopping): the empty page is answered at once. */
  signal: AbortSignal;
}

/** Reads until the page has an event, the wait is over or its signal aborts. */
async function readUntilEvent(read: () => Promise<FeedPageRows>, wait: FeedWait | undefined): Promise<FeedPageRows> {
  let page = await read();
  if (!wait) return page;
  const deadline = Date.now() + wait.ms;
  while (page.last === null && !wait.signal.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const slept = await sleep(Math.min(wait.pollMs, left), wait.signal).then(
      () => true,
      () => false,
    );
    if (!slept) break;
    page = await read();
  }
  return page;
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
 * A long poll (`wait`) reads the page again every `pollMs` while it is empty, so it answers within
 * that of the first event becoming visible (the snapshot guard decides visibility, decision 0159).
 */
export async function readFeedPage(db: Kysely<EventsDb>, cursors: FeedCursors, request: FeedPageRequest): Promise<JsonText> {
  const after = request.after === null ? null : cursors.decode(request.tenantId, request.after);
  const query = {
    tenantId: request.tenantId,
    product: request.product,
    types: request.types,
    after,
    limit: request.limit,
    maxBytes: request.maxBytes - PAGE_FRAME_BYTES,
  };
  const page = await readUntilEvent(() => readFeedPageRows(db, query), request.wait);
  const nextCursor = page.last ? cursors.encode(request.tenantId, page.last) : null;
  return new JsonText(pageBytes(page.eventsJson, `],"nextCursor":${JSON.stringify(nextCursor)},"hasMore":${page.hasMore}}`));
}

const PAGE_HEAD = '{"events":[';

/**
 * The page's JSON as bytes, written straight into one buffer: the events' text (~200 KB for a full
 * page, in parts of 50 events) is never copied into one string, which V8 would keep in its
 * large-object space until a full collection.
 */
function pageBytes(eventsJson: string[], tail: string): Buffer {
  const commas = Math.max(0, eventsJson.length - 1);
  const eventsBytes = eventsJson.reduce((sum, part) => sum + Buffer.byteLength(part, 'utf8'), commas);
  const bytes = Buffer.allocUnsafe(PAGE_HEAD.length + eventsBytes + Buffer.byteLength(tail, 'utf8'));
  let at = bytes.write(PAGE_HEAD, 0, 'latin1');
  eventsJson.forEach((part, i) => {
    if (i > 0) at += bytes.write(',', at, 'latin1');
    at += bytes.write(part, at, 'utf8');
  });
  bytes.write(tail, at, 'utf8');
  return bytes;
}
