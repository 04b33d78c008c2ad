import { createHmac } from 'node:crypto';
import { badRequest, cursorCodec, isUuid, sealedTokens, type AppError } from '@catalog/platform';
import type { FeedPosition } from '../persistence/feed-page.js';

export interface FeedCursors {
  encode(tenantId: string, position: FeedPosition): string;
  /** The position of a cursor issued to this tenant; anything else is a malformed cursor (400). */
  decode(tenantId: string, token: string): FeedPosition;
}

/** The product whose v1 feed cursors were signed with the configured secret itself. */
const CATALOG_PRODUCT = 'catalog';
/** The version of the cursors handed out: sealed (v1 was signed but readable). */
const SEALED_VERSION = 2;
/** A position sealed: the transaction id (unsigned 64-bit, big-endian) and the event id's 16 bytes. */
const POSITION_BYTES = 24;

const malformed = (): AppError =>
  badRequest('invalid_cursor', 'the cursor is malformed; use a nextCursor exactly as returned', { parameter: 'after' });

/**
 * Feed cursors (decision 0152): opaque, versioned tokens that reveal nothing. v2, the one handed
 * out, is sealed (AES-256-GCM, sealedTokens) with a key derived from `secret` for this product's
 * feed alone and the tenant authenticated with it, so a cursor of another tenant or another feed
 * does not open; its plaintext has one fixed length, so not even the size of the transaction
 * counter shows. The transaction id a v1 cursor let any tenant read tells how busy the others are.
 * v1 cursors, signed but readable, are still read (a client keeps its cursor up to the 30 days
 * events are kept) and answered with v2 ones.
 */
export function feedCursors(secret: string, product: string = CATALOG_PRODUCT): FeedCursors {
  const sealed = sealedTokens({ version: SEALED_VERSION, secret, purpose: `feed-cursor:${product}` });
  const signed = signedFeedCursors(secret, product);
  return {
    encode(tenantId, position) {
      const plaintext = Buffer.alloc(POSITION_BYTES);
      plaintext.writeBigUInt64BE(BigInt(position.tx), 0);
      Buffer.from(position.id.replace(/-/g, ''), 'hex').copy(plaintext, 8);
      return sealed.seal(plaintext, tenantId);
    },
    decode(tenantId, token) {
      if (!sealed.claims(token)) return signed(tenantId, token);
      const plaintext = sealed.open(token, tenantId);
      if (plaintext === null || plaintext.length !== POSITION_BYTES) throw malformed();
      return { tx: plaintext.readBigUInt64BE(0).toString(), id: uuidText(plaintext.subarray(8)) };
    },
  };
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface SignedPayload extends Record<string, unknown> {
  t: string;
  /** The product, in cursors of every feed but the catalog's (whose v1 cursors predate it). */
  p?: string;
  x: string;
  i: string;
}

/**
 * The reader of v1 cursors: base64url JSON `{v, t, p?, x, i}` and an HMAC. The catalog feed's are
 * signed with `secret`, another product's (the library's, decision 0103) with a key derived from it
 * for that product alone. No new one is issued.
 */
function signedFeedCursors(secret: string, product: string): (tenantId: string, token: string) => FeedPosition {
  const ownKey = product !== CATALOG_PRODUCT;
  const codec = cursorCodec<SignedPayload>({
    version: 1,
    secret: ownKey ? createHmac('sha256', secret).update(`feed-cursor:${product}`).digest('base64url') : secret,
    check: (p): p is SignedPayload =>
      isUuid(p.t) && (!ownKey || p.p === product) && typeof p.x === 'string' && /^\d{1,20}$/.test(p.x) && isUuid(p.i),
  });
  return (tenantId, token) => {
    const payload = codec.decode(token);
    if (payload.t !== tenantId) throw malformed();
    return { tx: payload.x, id: payload.i };
  };
}
