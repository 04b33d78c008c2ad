import { cursorCodec, isUuid } from '@catalog/platform';

const idOnly = (payload: Record<string, unknown>): payload is { id: string } => isUuid(payload.id) && Object.keys(payload).length === 1;

/**
 * The `after` cursors of the integration and assignment listings: opaque and versioned, holding
 * the id of the last row of the previous page. Like the entity cursor they need no signature: the
 * listing stays within the caller's tenant (and integration) whatever id they name. Anything else
 * is a malformed cursor, 400 invalid_cursor.
 */
export const integrationCursor = cursorCodec<{ id: string }>({ version: 1, check: idOnly });
export const assignmentCursor = cursorCodec<{ id: string }>({ version: 1, check: idOnly });
