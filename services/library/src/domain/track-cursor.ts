import { MAX_TRACK_CURSOR_LENGTH, TRACK_SORTS } from '@catalog/contracts';
import { badRequest, cursorCodec, derivedCursorKey, isUuid } from '@catalog/platform';

/** Where a page of the track listing ended, and the listing it belongs to. */
export interface TrackPosition {
  /** sort, order ('a'/'d'), fingerprint of the words of q (relevance only), sort value, entity id */
  s: string;
  o: string;
  q: string;
  k: string | number | null;
  i: string;
}

export interface TrackCursors {
  encode(tenantId: string, position: TrackPosition): string;
  /** The position of a cursor this library issued to this tenant; anything else is 400 invalid_cursor. */
  decode(tenantId: string, token: string): TrackPosition;
}

interface Payload extends TrackPosition, Record<string, unknown> {
  t: string;
}

/** Whether a cursor's sort value has the type of its sort's key (a second line behind the signature). */
function valueFits(sort: string, value: string | number | null): boolean {
  if (value === null) return sort === 'artist' || sort === 'bpm' || sort === 'duration';
  if (sort === 'title' || sort === 'artist') return typeof value === 'string' && value.length <= 2_000;
  if (sort === 'updated') return typeof value === 'string' && value.length <= 40 && !Number.isNaN(Date.parse(value));
  if (sort === 'duration') return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 2 ** 31 - 1;
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * The `after` cursors of the track listing (decision 0116): opaque, versioned (v2) and
 * HMAC-protected with a key derived from `secret` for this use alone, binding the tenant, so the
 * sort value a page resumes from is always one the library itself read from its tracks (a forged
 * value, with a NUL or a timestamp Postgres cannot hold, was a 500). Another tenant's cursor,
 * an altered one, and the unsigned v1 cursors of before are malformed: 400 invalid_cursor.
 */
export function trackCursors(secret: string): TrackCursors {
  const codec = cursorCodec<Payload>({
    version: 2,
    maxLength: MAX_TRACK_CURSOR_LENGTH,
    secret: derivedCursorKey(secret, 'library-track-cursor'),
    check: (p): p is Payload =>
      isUuid(p.t) &&
      (TRACK_SORTS as readonly unknown[]).includes(p.s) &&
      (p.o === 'a' || p.o === 'd') &&
      typeof p.q === 'string' &&
      (p.k === null || typeof p.k === 'string' || typeof p.k === 'number') &&
      isUuid(p.i) &&
      valueFits(p.s as string, p.k as string | number | null),
  });
  return {
    encode: (tenantId, position) => codec.encode({ t: tenantId, ...position }),
    decode(tenantId, token) {
      const { t, s, o, q, k, i } = codec.decode(token);
      if (t !== tenantId) {
        throw badRequest('invalid_cursor', 'the cursor is malformed; use a nextCursor exactly as returned', { parameter: 'after' });
      }
      return { s, o, q, k, i };
    },
  };
}
