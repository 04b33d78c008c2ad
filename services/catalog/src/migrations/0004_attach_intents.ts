import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Attach intents (decision 0025): the catalog records one, committed, before a version's
 * transaction asks the asset service to attach an existing asset to it, and the version's
 * transaction deletes it; one left behind means the version was never written, and the sweeper
 * asks the asset service to release the asset. An internal work queue like `asset.expiries`: ids
 * and the caller's source system only, no row-level security, so the sweeper can claim the rows of
 * every tenant (FOR UPDATE SKIP LOCKED); every write names its tenant. Frozen in time.
 */
export const attachIntents: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.attach_intents (
           version_id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           asset_id uuid NOT NULL,
           source_system text NOT NULL,
           created_at timestamptz NOT NULL DEFAULT now()
         );
         CREATE INDEX attach_intents_created_at_idx ON catalog.attach_intents (created_at);`,
      )
      .execute(db);
  },
};
