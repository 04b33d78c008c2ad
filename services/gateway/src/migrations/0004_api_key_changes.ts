import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The change log of the API-key table that every gateway replica's in-memory copy follows
 * (decision 0070): one row per committed change of a key (`key_id`) or of an organisation's plan
 * (`organization_id`), numbered in commit order (writers take one advisory lock first). Frozen in time.
 */
export const apiKeyChanges: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE gateway.api_key_changes (
        seq bigserial PRIMARY KEY,
        key_id uuid,
        organization_id uuid,
        changed_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((key_id IS NULL) <> (organization_id IS NULL))
      )`.execute(db);
  },
};
