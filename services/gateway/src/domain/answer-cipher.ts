import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';

/** Seals the answers kept for Idempotency-Keys, so the database never holds them readable (decision 0119). */
export interface AnswerCipher {
  seal(plain: Buffer, context: string): Buffer;
  /** The plain answer, or undefined when it was sealed with another secret or altered. */
  open(sealed: Buffer, context: string): Buffer | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a key derived (HKDF-SHA256) from a secret of the gateway; `context` (the key's
 * scope and name) is authenticated with it, so an answer cannot be moved to another key. An answer
 * holds an issued API key's secret, which the database must not keep in the clear.
 */
export function answerCipher(secret: string): AnswerCipher {
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'catalog-gateway', 'idempotency-answers', 32)));
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    open(sealed, context) {
      if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        return undefined;
      }
    },
  };
}
