import { cursorCodec, isUuid } from '@catalog/platform';

/**
 * The `after` cursor of the molecule listing: opaque and versioned, holding the id of the last
 * molecule of the previous page. Like the entity cursor it needs no signature: the listing stays
 * within the caller's tenant whatever it names. Anything else is 400 invalid_cursor.
 */
type CursorPayload = { moleculeId: string };

export const moleculeCursor = cursorCodec<CursorPayload>({
  version: 1,
  check: (payload): payload is CursorPayload => isUuid(payload.moleculeId) && Object.keys(payload).length === 1,
});
