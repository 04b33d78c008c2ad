import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors.js';

/**
 * Opaque, versioned page cursors: base64url of `{v, ...payload}` and, when a secret is given, an
 * HMAC-SHA256 tag over it, so a cursor cannot be forged or altered. Anything that does not decode,
 * verify, carry the expected version, or pass `check` is a malformed cursor (400 invalid_cursor).
 */
export interface CursorCodec<P extends Record<string, unknown>> {
  encode(payload: P): string;
  decode(token: string): P;
}

export interface CursorCodecSettings<P> {
  version: number;
  /** HMAC key; without one the cursor is opaque and versioned but not tamper-evident. */
  secret?: string;
  /** Longest token taken (default 1024 characters). */
  maxLength?: number;
  check: (payload: Record<string, unknown>) => payload is Record<string, unknown> & P;
}

const TAG_BYTES = 16;

/**
 * A key for one kind of cursor alone, derived from a secret shared with other uses (HMAC-SHA256
 * of `purpose`): no cursor of one kind verifies as another, and the secret is never used as is.
 */
export function derivedCursorKey(secret: string, purpose: string): string {
  return createHmac('sha256', secret).update(purpose).digest('base64url');
}

export function cursorCodec<P extends Record<string, unknown>>(settings: CursorCodecSettings<P>): CursorCodec<P> {
  // A KeyObject made once: given the secret itself, every HMAC would build a native key of its own.
  const key = settings.secret ? createSecretKey(Buffer.from(settings.secret, 'utf8')) : null;
  const sign = (data: Buffer): Buffer => createHmac('sha256', key!).update(data).digest().subarray(0, TAG_BYTES);
  const malformed = () =>
    badRequest('invalid_cursor', 'the cursor is malformed; use a nextCursor exactly as returned', { parameter: 'after' });
  return {
    encode(payload) {
      const data = Buffer.from(JSON.stringify({ v: settings.version, ...payload }), 'utf8');
      const packed = settings.secret ? Buffer.concat([data, sign(data)]) : data;
      return packed.toString('base64url');
    },
    decode(token) {
      if (token.length > (settings.maxLength ?? 1024) || !/^[A-Za-z0-9_-]+$/.test(token)) throw malformed();
      let packed = Buffer.from(token, 'base64url');
      if (settings.secret) {
        if (packed.length <= TAG_BYTES) throw malformed();
        const data = packed.subarray(0, packed.length - TAG_BYTES);
        const tag = packed.subarray(packed.length - TAG_BYTES);
        if (!timingSafeEqual(tag, sign(data))) throw malformed();
        packed = data;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(packed.toString('utf8'));
      } catch {
        throw malformed();
      }
      if (typeof parsed !== 'object' || parsed === null || (parsed as { v?: unknown }).v !== settings.version) throw malformed();
      const { v: _version, ...payload } = parsed as Record<string, unknown>;
      if (!settings.check(payload)) throw malformed();
      return payload as P;
    },
  };
}
