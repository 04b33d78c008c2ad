import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A rotation with a grace period (decision 0120) keeps the hash of the key's former secret and
 * when it stops working; both or neither are set. Frozen in time.
 */
export const apiKeyPreviousSecret: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      ALTER TABLE gateway.api_keys
        ADD COLUMN previous_secret_hash bytea,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD CONSTRAINT api_keys_previous_secret_whole
          CHECK ((previous_secret_hash IS NULL) = (previous_secret_expires_at IS NULL))`.execute(db);
  },
};
