import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../support/errors.js';

/**
 * Signed URLs of a service's own listener (the asset service's fs uploads and internal downloads,
 * the analysis service's large results), in the manner of Rails ActiveStorage's Disk service: the
 * query carries the parameters in clear and `sig`, an HMAC-SHA256 over the method, the path (which
 * names the object), and every other query parameter in sorted order. `exp` (Unix seconds) is mandatory. Changing any of them, or moving the
 * signature to another object's path, makes it fail; so does using it after `exp`.
 */
export interface UrlSigner {
  /** The query string (without `?`) for `method path` carrying `params`, valid until `expiresAt`. */
  sign(method: string, path: string, params: Record<string, string>, expiresAt: Date): string;
  /** The signed parameters of a request; 403 when the signature is missing, wrong or expired. */
  verify(method: string, path: string, query: URLSearchParams, now?: Date): Record<string, string>;
}

const VERSION = 'v1';

function canonical(method: string, path: string, params: Record<string, string>): string {
  const pairs = Object.keys(params)
    .sort()
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(params[key]!)}`);
  return `${VERSION}\n${method.toUpperCase()}\n${path}\n${pairs.join('&')}`;
}

function forbidden(code: string, message: string): AppError {
  return new AppError(403, code, message);
}

export function createUrlSigner(secret: string | Buffer): UrlSigner {
  // A KeyObject made once: given bytes, every HMAC would build a native key of its own.
  const key = createSecretKey(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
  const mac = (text: string): Buffer => createHmac('sha256', key).update(text).digest();
  return {
    sign(method, path, params, expiresAt) {
      const all = { ...params, exp: String(Math.floor(expiresAt.getTime() / 1000)) };
      const sig = mac(canonical(method, path, all)).toString('base64url');
      return new URLSearchParams({ ...all, sig }).toString();
    },
    verify(method, path, query, now = new Date()) {
      const params: Record<string, string> = {};
      let sig: string | undefined;
      for (const [name, value] of query) {
        if (name in params || (name === 'sig' && sig !== undefined)) throw forbidden('invalid_signature', 'a signed parameter is repeated');
        if (name === 'sig') sig = value;
        else params[name] = value;
      }
      if (!sig || !params.exp) throw forbidden('invalid_signature', 'the URL is not signed');
      const expected = mac(canonical(method, path, params));
      const given = Buffer.from(sig, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw forbidden('invalid_signature', 'the URL signature does not match this request');
      }
      const exp = Number(params.exp);
      if (!Number.isInteger(exp) || exp * 1000 <= now.getTime()) throw forbidden('signature_expired', 'the signed URL has expired');
      return params;
    },
  };
}

/** A random signing key for a single replica that was given none. */
export function randomSigningSecret(): Buffer {
  return randomBytes(32);
}
