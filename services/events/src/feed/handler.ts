import { badRequest, type Kysely, type RpcHandler } from '@catalog/platform';
import type { FeedCursors } from './cursor.js';
import { readFeedPage } from './page.js';
import { FEED_PRODUCT, parseTypesFilter } from './types-filter.js';

export const FEED_LIMIT = { min: 1, max: 500, default: 100 } as const;

/**
 * `listEvents`: the tenant's catalog feed. The gateway has already checked the query against the
 * route's schema; the limit is checked again here because the service may be called directly.
 */
export function listEventsHandler(db: Kysely<any>, cursors: FeedCursors): RpcHandler {
  return async (request, call, reply) => {
    const limit = request.query.limit ?? FEED_LIMIT.default;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < FEED_LIMIT.min || limit > FEED_LIMIT.max) {
      throw badRequest('invalid_query', `limit must be an integer from ${FEED_LIMIT.min} to ${FEED_LIMIT.max}`, { parameter: 'limit' });
    }
    const after = request.query.after;
    if (after !== undefined && typeof after !== 'string')
      throw badRequest('invalid_cursor', 'the cursor is malformed', { parameter: 'after' });
    const page = await readFeedPage(db, cursors, {
      tenantId: call.tenantId,
      product: FEED_PRODUCT,
      limit,
      types: parseTypesFilter(request.query.types),
      after: after ?? null,
      maxBytes: reply.maxBodyBytes,
    });
    return { status: 200, body: page };
  };
}
