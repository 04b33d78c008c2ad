import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync } from 'node:crypto';

/**
 * Sealed tokens: bytes handed to a client that it can neither read nor alter. A token is the
 * URL-safe base64 of `version (1 byte) | nonce (12) | AES-256-GCM ciphertext | tag (16)`; the key
 * is derived (HKDF-SHA256) from a secret for one purpose alone, and the version byte and a
 * `context` (e.g. the tenant the token was issued to) are authenticated with it, so a token of
 * another context, another purpose, another secret or another version does not open.
 *
 * The nonce is synthetic (an HMAC of the context and the plaintext, under a key of its own): the
 * same plaintext in the same context gives the same token, and two different plaintexts never
 * share a nonce short of a 96-bit collision, so there is no bound on how many tokens one key seals
 * (random 96-bit nonces would have one). The ciphertext is as long as the plaintext: seal
 * plaintexts of one fixed length where their length would tell something.
 */
export interface SealedTokens {
  seal(plaintext: Buffer, context: string): string;
  /** The plaintext of a token this sealed in `context`; null for anything else. */
  open(token: string, context: string): Buffer | null;
  /** Whether `token` claims this version (its first byte), whether or not it opens. */
  claims(token: string): boolean;
}

export interface SealedTokenSettings {
  /** 1..255, the token's first byte. */
  version: number;
  secret: string;
  /** What the tokens are for: keys derived for one purpose open no token of another. */
  purpose: string;
  /** Longest token opened (default 1024 characters). */
  maxLength?: number;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/;

export function sealedTokens(settings: SealedTokenSettings): SealedTokens {
  if (!Number.isInteger(settings.version) || settings.version < 1 || settings.version > 255) {
    throw new Error(`a sealed token version is 1..255, not ${settings.version}`);
  }
  const keys = Buffer.from(hkdfSync('sha256', settings.secret, Buffer.alloc(0), `sealed-token:${settings.purpose}`, 64));
  // KeyObjects made once (as the call context's, decision 0056): given a Buffer, every cipher and
  // HMAC builds a native key of its own (8-10 µs of CPU each, and twice per page of the feed).
  const cipherKey = createSecretKey(keys.subarray(0, 32));
  const nonceKey = createSecretKey(keys.subarray(32));
  const version = Buffer.of(settings.version);
  const associated = (context: string): Buffer => Buffer.concat([version, Buffer.from(context, 'utf8')]);
  return {
    seal(plaintext, context) {
      const aad = associated(context);
      const nonce = createHmac('sha256', nonceKey)
        .update(Buffer.from(`${aad.length}:`))
        .update(aad)
        .update(plaintext)
        .digest()
        .subarray(0, NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', cipherKey, nonce, { authTagLength: TAG_BYTES }).setAAD(aad);
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([version, nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
    },
    open(token, context) {
      if (token.length > (settings.maxLength ?? 1024) || !TOKEN_PATTERN.test(token)) return null;
      const packed = Buffer.from(token, 'base64url');
      if (packed.length <= 1 + NONCE_BYTES + TAG_BYTES || packed[0] !== settings.version) return null;
      const nonce = packed.subarray(1, 1 + NONCE_BYTES);
      const ciphertext = packed.subarray(1 + NONCE_BYTES, packed.length - TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', cipherKey, nonce, { authTagLength: TAG_BYTES })
        .setAAD(associated(context))
        .setAuthTag(packed.subarray(packed.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
      } catch {
        return null;
      }
    },
    claims(token) {
      return TOKEN_PATTERN.test(token) && Buffer.from(token.slice(0, 4), 'base64url')[0] === settings.version;
    },
  };
}
