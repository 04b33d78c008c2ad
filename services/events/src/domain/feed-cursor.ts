import { badRequest, cursorCodec, isUuid, type AppError } from '@catalog/platform';
import type { FeedPosition } from '../persistence/feed-page.js';

export interface FeedCursors {
  encode(tenantId: string, position: FeedPosition): string;
  /** The position of a cursor issued to this tenant; anything else is a malformed cursor (400). */
  decode(tenantId: string, token: string): FeedPosition;
}

interface Payload extends Record<string, unknown> {
  t: string;
  x: string;
  i: string;
}

const malformed = (): AppError =>
  badRequest('invalid_cursor', 'the cursor is malformed; use a nextCursor exactly as returned', { parameter: 'after' });

/**
 * Feed cursors: opaque, versioned (v1) and HMAC-protected; the payload binds the tenant, so a
 * cursor of another tenant does not verify as this tenant's and is rejected like a forged one.
 */
export function feedCursors(secret: string): FeedCursors {
  const codec = cursorCodec<Payload>({
    version: 1,
    secret,
    check: (p): p is Payload => isUuid(p.t) && typeof p.x === 'string' && /^\d{1,20}$/.test(p.x) && isUuid(p.i),
  });
  return {
    encode(tenantId, position) {
      return codec.encode({ t: tenantId, x: position.tx, i: position.id });
    },
    decode(tenantId, token) {
      const payload = codec.decode(token);
      if (payload.t !== tenantId) throw malformed();
      return { tx: payload.x, id: payload.i };
    },
  };
}
