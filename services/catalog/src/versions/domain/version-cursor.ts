import { VERSION_KINDS } from '@catalog/contracts';
import { cursorCodec, isUuid } from '@catalog/platform';
import type { VersionPosition } from '../persistence/versions.js';

/**
 * The `after` cursor of the version listing: opaque and versioned, holding the kind and id of the
 * last version of the previous page (the listing's order). Like the entity cursor it needs no
 * signature: the listing stays within the caller's tenant and entity whatever it names. Anything
 * else is a malformed cursor, 400 invalid_cursor.
 */
type CursorPayload = { kind: VersionPosition['kind']; id: string };

export const versionCursor = cursorCodec<CursorPayload>({
  version: 1,
  check: (payload): payload is CursorPayload =>
    Object.keys(payload).length === 2 && isUuid(payload.id) && (VERSION_KINDS as readonly unknown[]).includes(payload.kind),
});
