import { operationById } from '@catalog/contracts';
import { defineOperation, type Kysely, type Operation } from '@catalog/platform';
import type { FeedCursors } from '../domain/feed-cursor.js';
import { readFeedPage } from '../domain/feed-page.js';
import { typesFilterOf } from '../domain/types-filter.js';
import type { EventsDb } from '../persistence/tables.js';

/**
 * A product's feed operation: the tenant's events of that product, a page of at most `limit`
 * (default 100, the schema's), of the `types` named, after the cursor, within the bus reply's byte
 * budget. Both feeds share the table, query, ordering, snapshot guard, page bounds and rate limit;
 * each has its own cursors and types. With `wait`, an empty page is read again until an event is
 * visible or the wait is over (a long poll, decision 0159).
 */
/** What a long poll needs: how often it looks again, and the signal that ends every wait (the service stopping). */
export interface FeedWaits {
  pollMs: number;
  signal: AbortSignal;
}

function feedOperation(
  id: 'listEvents' | 'listLibraryEvents',
  product: string,
  db: Kysely<EventsDb>,
  cursors: FeedCursors,
  waits: FeedWaits,
): Operation {
  const parseTypes = typesFilterOf(product);
  return defineOperation(operationById(id), async ({ query }, call, reply) => {
    const page = await readFeedPage(db, cursors, {
      tenantId: call.tenantId,
      product,
      limit: query.limit ?? 100,
      types: parseTypes(query.types),
      after: query.after ?? null,
      maxBytes: reply.maxBodyBytes,
      ...(query.wait ? { wait: { ms: query.wait * 1000, pollMs: waits.pollMs, signal: waits.signal } } : {}),
    });
    return { body: page };
  });
}

/** `listEvents`: the catalog feed (`GET /api/v1/catalog/events`). */
export function listEventsOperation(db: Kysely<EventsDb>, cursors: FeedCursors, waits: FeedWaits): Operation {
  return feedOperation('listEvents', 'catalog', db, cursors, waits);
}

/** `listLibraryEvents`: the library product's feed (`GET /api/v1/library/events`, decision 0103). */
export function listLibraryEventsOperation(db: Kysely<EventsDb>, cursors: FeedCursors, waits: FeedWaits): Operation {
  return feedOperation('listLibraryEvents', 'library', db, cursors, waits);
}
