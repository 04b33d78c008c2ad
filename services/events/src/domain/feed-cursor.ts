import { createHmac } from 'node:crypto';
import { badRequest, cursorCodec, isUuid, type AppError } from '@catalog/platform';
import type { FeedPosition } from '../persistence/feed-page.js';

export interface FeedCursors {
  encode(tenantId: string, position: FeedPosition): string;
  /** The position of a cursor issued to this tenant; anything else is a malformed cursor (400). */
  decode(tenantId: string, token: string): FeedPosition;
}

interface Payload extends Record<string, unknown> {
  t: string;
  /** The product, in cursors of every feed but the catalog's (whose v1 cursors predate it). */
  p?: string;
  x: string;
  i: string;
}

/** The product whose feed cursors are signed with the configured secret itself. */
const CATALOG_PRODUCT = 'catalog';

const malformed = (): AppError =>
  badRequest('invalid_cursor', 'the cursor is malformed; use a nextCursor exactly as returned', { parameter: 'after' });

/**
 * Feed cursors: opaque, versioned (v1) and HMAC-protected; the payload binds the tenant, so a
 * cursor of another tenant does not verify as this tenant's and is rejected like a forged one.
 * The catalog feed's are signed with `secret`; another product's feed (the library's, decision
 * 0103) signs with a key derived from it for that product alone and names the product, so a cursor
 * of one feed never verifies in another and neither can be made from the other.
 */
export function feedCursors(secret: string, product: string = CATALOG_PRODUCT): FeedCursors {
  const ownKey = product !== CATALOG_PRODUCT;
  const codec = cursorCodec<Payload>({
    version: 1,
    secret: ownKey ? createHmac('sha256', secret).update(`feed-cursor:${product}`).digest('base64url') : secret,
    check: (p): p is Payload =>
      isUuid(p.t) && (!ownKey || p.p === product) && typeof p.x === 'string' && /^\d{1,20}$/.test(p.x) && isUuid(p.i),
  });
  return {
    encode(tenantId, position) {
      const base = { t: tenantId, x: position.tx, i: position.id };
      return codec.encode(ownKey ? { ...base, p: product } : base);
    },
    decode(tenantId, token) {
      const payload = codec.decode(token);
      if (payload.t !== tenantId) throw malformed();
      return { tx: payload.x, id: payload.i };
    },
  };
}
