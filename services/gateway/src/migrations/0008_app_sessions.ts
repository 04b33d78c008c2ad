import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The library page's sessions (decision 0153): a row per signed-in browser, found by the SHA-256
 * of its cookie's token (the token itself is never stored), naming the key and the hash of the
 * secret it was opened with (a rotation ends it), when it was last used (idle expiry) and when it
 * ends whatever its use (absolute expiry). Rows go with their key. Frozen in time.
 */
export const appSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE gateway.app_sessions (
        token_hash bytea PRIMARY KEY,
        key_id uuid NOT NULL REFERENCES gateway.api_keys (id) ON DELETE CASCADE,
        secret_hash bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`.execute(db);
    await sql`CREATE INDEX app_sessions_by_key ON gateway.app_sessions (key_id, created_at)`.execute(db);
    await sql`CREATE INDEX app_sessions_last_used_at ON gateway.app_sessions (last_used_at)`.execute(db);
  },
};
