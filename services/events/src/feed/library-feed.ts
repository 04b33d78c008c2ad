import { createHmac } from 'node:crypto';
import { eventTypes, operationById, RESERVED_EVENT_TYPES } from '@catalog/contracts';
import { badRequest, cursorCodec, defineOperation, isUuid, type Operation } from '@catalog/platform';
import type { FeedCursors } from './cursor.js';
import { readFeedPage } from './page.js';

/**
 * The library product's feed (`GET /api/v1/library/events`, decision 0103): the same feed table,
 * query, ordering, snapshot guard, page bounds and rate limit as the catalog feed, over the rows of
 * product `library` only, with cursors of its own and the library's event types.
 */
const LIBRARY_PRODUCT = 'library';

/** Types the library feed's `types` filter takes: the registered `library` types and the reserved ones. */
const libraryTypes: ReadonlySet<string> = new Set([
  ...eventTypes.filter((e) => e.product === LIBRARY_PRODUCT).map((e) => e.type),
  ...RESERVED_EVENT_TYPES,
]);

interface Payload extends Record<string, unknown> {
  t: string;
  p: string;
  x: string;
  i: string;
}

/**
 * Cursors of the library feed: v1 like the catalog feed's, plus the product, signed with a key
 * derived from `FEED_CURSOR_SECRET` for this feed alone, so a cursor of one feed never verifies in
 * the other (400 invalid_cursor) and neither can be made from the other.
 */
export function libraryFeedCursors(secret: string): FeedCursors {
  const codec = cursorCodec<Payload>({
    version: 1,
    secret: createHmac('sha256', secret).update('feed-cursor:library').digest('base64url'),
    check: (p): p is Payload => isUuid(p.t) && p.p === LIBRARY_PRODUCT && typeof p.x === 'string' && /^\d{1,20}$/.test(p.x) && isUuid(p.i),
  });
  const malformed = () =>
    badRequest('invalid_cursor', 'the cursor is malformed; use a nextCursor exactly as returned', { parameter: 'after' });
  return {
    encode: (tenantId, position) => codec.encode({ t: tenantId, p: LIBRARY_PRODUCT, x: position.tx, i: position.id }),
    decode(tenantId, token) {
      const payload = codec.decode(token);
      if (payload.t !== tenantId) throw malformed();
      return { tx: payload.x, id: payload.i };
    },
  };
}

/** `types` of the library feed: null for all; an empty item is 400 invalid_query, a type it does not know 400 unknown_event_type. */
function libraryTypesFilter(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const types = raw.split(',').map((t) => t.trim());
  if (types.some((t) => t === '')) {
    throw badRequest('invalid_query', 'types must be a comma-separated list of event types without empty items', { parameter: 'types' });
  }
  const unknown = [...new Set(types.filter((t) => !libraryTypes.has(t)))];
  if (unknown.length > 0) {
    throw badRequest('unknown_event_type', `unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
      parameter: 'types',
      unknownTypes: unknown,
    });
  }
  return [...new Set(types)];
}

/** `listLibraryEvents`: a page of the tenant's library feed, within the reply's byte budget. */
export function listLibraryEventsOperation(db: Parameters<typeof readFeedPage>[0], cursors: FeedCursors): Operation {
  return defineOperation(operationById('listLibraryEvents'), async ({ query }, call, reply) => ({
    body: await readFeedPage(db, cursors, {
      tenantId: call.tenantId,
      product: LIBRARY_PRODUCT,
      limit: query.limit ?? 100,
      types: libraryTypesFilter(query.types),
      after: query.after ?? null,
      maxBytes: reply.maxBodyBytes,
    }),
  }));
}
