import { cursorCodec, isUuid } from '@catalog/platform';

/**
 * The `after` cursor of the entity listing: opaque and versioned, holding the id of the last
 * entity of the previous page. It needs no signature: whatever id it names, the listing is still
 * limited to the caller's tenant. Anything else (including an id that is not a UUID) is a
 * malformed cursor, 400 invalid_cursor.
 */
export const entityCursor = cursorCodec<{ id: string }>({
  version: 1,
  check: (payload): payload is { id: string } => isUuid(payload.id) && Object.keys(payload).length === 1,
});
