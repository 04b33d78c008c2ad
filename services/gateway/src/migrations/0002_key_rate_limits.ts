import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Per-key request limits shared by every gateway replica: one row per key and limited scope,
 * holding the times of the requests admitted in the last window (at most the limit, so a row
 * stays small and needs no cleanup job). Frozen in time.
 */
export const keyRateLimits: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE gateway.key_rate_limits (
        key_id uuid NOT NULL,
        scope text NOT NULL,
        admitted timestamptz[] NOT NULL,
        allowed boolean NOT NULL,
        PRIMARY KEY (key_id, scope)
      )`.execute(db);
  },
};
