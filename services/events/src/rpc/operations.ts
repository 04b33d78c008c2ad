import { operationById } from '@catalog/contracts';
import { defineOperation, type Kysely, type Operation } from '@catalog/platform';
import type { FeedCursors } from '../domain/feed-cursor.js';
import { readFeedPage } from '../domain/feed-page.js';
import { FEED_PRODUCT, parseTypesFilter } from '../domain/types-filter.js';
import type { EventsDb } from '../persistence/tables.js';

/**
 * `listEvents`: the tenant's catalog feed, a page of at most `limit` events (default 100, the
 * schema's), of the `types` named, after the cursor, within the bus reply's byte budget.
 */
export function listEventsOperation(db: Kysely<EventsDb>, cursors: FeedCursors): Operation {
  return defineOperation(operationById('listEvents'), async ({ query }, call, reply) => {
    const page = await readFeedPage(db, cursors, {
      tenantId: call.tenantId,
      product: FEED_PRODUCT,
      limit: query.limit ?? 100,
      types: parseTypesFilter(query.types),
      after: query.after ?? null,
      maxBytes: reply.maxBodyBytes,
    });
    return { body: page };
  });
}
