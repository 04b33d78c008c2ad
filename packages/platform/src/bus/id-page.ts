import { cursorCodec } from '../support/cursor.js';
import { isUuid } from '../support/ids.js';
import { fitPage } from './payload-size.js';

/**
 * The `after` cursor of every listing ordered by one id (the catalog's entities, relations,
 * molecules, integrations, assignments and jobs; the analysis service's jobs): opaque and versioned, holding the id of the last row of the
 * previous page. It needs no signature: whatever id it names, the listing stays within the
 * caller's tenant. Anything else (including an id that is not a UUID) is 400 invalid_cursor.
 */
export const idCursor = cursorCodec<{ id: string }>({
  version: 1,
  check: (payload): payload is { id: string } => isUuid(payload.id) && Object.keys(payload).length === 1,
});

/** The id an `after` cursor names, if one was given. */
export function afterId(after: string | undefined): string | undefined {
  return after !== undefined ? idCursor.decode(after).id : undefined;
}

/**
 * A keyset page of rows read with one row more than `limit`: at most `limit`, and no more than
 * fit `maxBytes` (decision 0052); `nextCursor` names the last row's id when more follow.
 */
export function idPage<T>(
  rows: T[],
  limit: number,
  maxBytes: number,
  idOf: (row: T) => string,
): { items: T[]; nextCursor: string | null; hasMore: boolean } {
  const page = fitPage(rows, limit, maxBytes);
  const last = page.items[page.items.length - 1];
  return { items: page.items, nextCursor: page.hasMore && last ? idCursor.encode({ id: idOf(last) }) : null, hasMore: page.hasMore };
}
