import type { Pool } from 'pg';

/** A page session as its use reads it: the key and the hash of the secret it was opened with. */
export interface AppSessionRow {
  key_id: string;
  secret_hash: Buffer;
  expires_at: Date;
}

/** How long sessions live, by the database's clock (the one every replica shares). */
export interface SessionTimes {
  /** A session unused for this long has ended. */
  idleMs: number;
  /** A session ends this long after it was opened, however it is used. */
  maxAgeMs: number;
}

const MS = (parameter: number): string => `make_interval(secs => $${parameter}::double precision / 1000)`;

/**
 * Opens a session of the key (its token's hash, the secret's hash), ending first the key's oldest
 * sessions beyond `perKey - 1`, so a key never holds more than `perKey` of them; one statement.
 */
export async function insertSession(
  pool: Pool,
  session: { tokenHash: Buffer; keyId: string; secretHash: Buffer },
  limits: { maxAgeMs: number; perKey: number },
): Promise<Date> {
  const result = await pool.query<{ expires_at: Date }>({
    name: 'gateway_insert_app_session',
    text: `with oldest as (
             delete from gateway.app_sessions
              where token_hash in (select token_hash from gateway.app_sessions where key_id = $2
                                    order by created_at desc offset $5::int - 1))
           insert into gateway.app_sessions (token_hash, key_id, secret_hash, expires_at)
           values ($1, $2, $3, now() + ${MS(4)})
           returning expires_at`,
    values: [session.tokenHash, session.keyId, session.secretHash, limits.maxAgeMs, limits.perKey],
  });
  return result.rows[0]!.expires_at;
}

/**
 * The session of the token's hash when it has neither been idle for `idleMs` nor passed its end,
 * marked as used now (which restarts its idle time); undefined otherwise.
 */
export async function useSession(pool: Pool, tokenHash: Buffer, idleMs: number): Promise<AppSessionRow | undefined> {
  const result = await pool.query<AppSessionRow>({
    name: 'gateway_use_app_session',
    text: `update gateway.app_sessions set last_used_at = now()
            where token_hash = $1 and expires_at > now() and last_used_at > now() - ${MS(2)}
           returning key_id, secret_hash, expires_at`,
    values: [tokenHash, idleMs],
  });
  return result.rows[0];
}

export async function deleteSession(pool: Pool, tokenHash: Buffer): Promise<void> {
  await pool.query({
    name: 'gateway_delete_app_session',
    text: `delete from gateway.app_sessions where token_hash = $1`,
    values: [tokenHash],
  });
}

/**
 * Deletes the sessions that have ended: idle or past their end, or whose key was revoked or
 * rotated since they were opened (use refuses those at once; this only frees their rows).
 */
export async function pruneSessions(pool: Pool, idleMs: number): Promise<number> {
  const result = await pool.query({
    text: `delete from gateway.app_sessions s
            where s.expires_at <= now() or s.last_used_at <= now() - ${MS(1)}
               or not exists (select 1 from gateway.api_keys k
                               where k.id = s.key_id and k.revoked_at is null and k.secret_hash = s.secret_hash)`,
    values: [idleMs],
  });
  return result.rowCount ?? 0;
}
