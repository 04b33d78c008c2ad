import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '@catalog/platform';
import { authenticateKey, presentedKey, type KeyStore, type PresentedKey } from './authenticate.js';
import { deleteSession, insertSession, useSession, type SessionTimes } from '../persistence/app-sessions.js';

/**
 * The library page's sessions (decision 0153): the page presents its key once, to open one, and
 * from then on only the session's token, which only the browser's cookie jar holds. Only the
 * token's SHA-256 is stored. A session is its key's for as long as the key keeps the secret it was
 * opened with: revoking or rotating the key ends it, as the replica of keys learns of that.
 */
export interface AppSessions {
  /**
   * Opens a session of the key in `authorization` (`Bearer sk_…`, its current secret only: 401
   * otherwise), ending the session of `replacing`, the token the browser held before, if any.
   */
  open(authorization: string | undefined, replacing: string | undefined): Promise<OpenedSession>;
  /**
   * The key of the token's session while the session lasts, marking it used; undefined when it
   * has ended (idle, past its end, signed out, or its key revoked or rotated: then its row goes).
   */
  use(token: string): Promise<SessionKey | undefined>;
  /** Ends the token's session (signing out); nothing when there is none. */
  end(token: string): Promise<void>;
}

export interface OpenedSession {
  token: string;
  keyId: string;
  expiresAt: Date;
}

/** The key a session presents for its page's calls, and when the session ends at the latest. */
export type SessionKey = PresentedKey & { expiresAt: Date };

export interface AppSessionDeps {
  keys: KeyStore;
  times: SessionTimes;
  /** Sessions a key may hold at once; opening one more ends its oldest. */
  perKey: number;
}

/** A token as issued: 256 random bits in base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** Whether `error` is authentication's refusal of the key (anything else is not the key's fault). */
const refused = (error: unknown): boolean => error instanceof AppError && error.status === 401;

export function appSessions(deps: AppSessionDeps): AppSessions {
  const { pool } = deps.keys;
  return {
    async open(authorization, replacing) {
      const presented: PresentedKey = { ...presentedKey(authorization), currentSecretOnly: true };
      const caller = await authenticateKey(deps.keys, presented);
      if (replacing !== undefined && TOKEN_PATTERN.test(replacing)) await deleteSession(pool, hashToken(replacing));
      const token = randomBytes(32).toString('base64url');
      const expiresAt = await insertSession(
        pool,
        { tokenHash: hashToken(token), keyId: caller.keyId, secretHash: presented.secretHash },
        { maxAgeMs: deps.times.maxAgeMs, perKey: deps.perKey },
      );
      return { token, keyId: caller.keyId, expiresAt };
    },
    async use(token) {
      if (!TOKEN_PATTERN.test(token)) return undefined;
      const tokenHash = hashToken(token);
      const row = await useSession(pool, tokenHash, deps.times.idleMs);
      if (!row) return undefined;
      const presented: PresentedKey = { keyId: row.key_id, secretHash: row.secret_hash, currentSecretOnly: true };
      try {
        await authenticateKey(deps.keys, presented);
      } catch (error) {
        if (!refused(error)) throw error;
        await deleteSession(pool, tokenHash);
        return undefined;
      }
      return { ...presented, expiresAt: row.expires_at };
    },
    async end(token) {
      if (TOKEN_PATTERN.test(token)) await deleteSession(pool, hashToken(token));
    },
  };
}
