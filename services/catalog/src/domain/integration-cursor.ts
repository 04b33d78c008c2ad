import { cursorCodec, fitPage, isUuid, type CursorCodec } from '@catalog/platform';

const idOnly = (payload: Record<string, unknown>): payload is { id: string } => isUuid(payload.id) && Object.keys(payload).length === 1;

/**
 * The `after` cursors of the integration and assignment listings: opaque and versioned, holding
 * the id of the last row of the previous page. Like the entity cursor they need no signature: the
 * listing stays within the caller's tenant (and integration) whatever id they name. Anything else
 * is a malformed cursor, 400 invalid_cursor.
 */
export const integrationCursor = cursorCodec<{ id: string }>({ version: 1, check: idOnly });
export const assignmentCursor = cursorCodec<{ id: string }>({ version: 1, check: idOnly });

/**
 * A keyset page of rows in id order, read with one row more than `limit`: at most `limit`, and no
 * more than fit `maxBytes` (decision 0052); `nextCursor` names the last row when more follow.
 */
export function idPage<T extends { id: string }>(
  rows: T[],
  limit: number,
  maxBytes: number,
  cursor: CursorCodec<{ id: string }>,
): { items: T[]; nextCursor: string | null; hasMore: boolean } {
  const page = fitPage(rows, limit, maxBytes);
  const last = page.items[page.items.length - 1];
  return { items: page.items, nextCursor: page.hasMore && last ? cursor.encode({ id: last.id }) : null, hasMore: page.hasMore };
}
