import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The key change log is pruned (decision 0073): `pruned_through` is the highest change number
 * deleted so far, in one row, so a replica whose last applied change is below it knows it missed
 * changes and reloads every key. Changes are found by age for the prune. Frozen in time.
 */
export const apiKeyChangeHorizon: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE gateway.api_key_change_horizon (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        pruned_through bigint NOT NULL DEFAULT 0
      )`.execute(db);
    await sql`INSERT INTO gateway.api_key_change_horizon DEFAULT VALUES`.execute(db);
    await sql`CREATE INDEX api_key_changes_changed_at ON gateway.api_key_changes (changed_at)`.execute(db);
  },
};
