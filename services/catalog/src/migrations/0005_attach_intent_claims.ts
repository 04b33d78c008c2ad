import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Attach intents without a transaction across the attach (decision 0058). The intent now commits
 * before the attach call and reserves its asset: at most one unclaimed intent per asset of a
 * tenant (partial unique index), so two versions of one asset cannot both be attaching it. The
 * sweeper claims an intent by stamping `claimed_until` (its lease) in a statement of its own, calls
 * the asset service with no transaction open, then settles the intent; a claimed intent is one
 * whose version is given up for good. Rows that would break the new index (two intents of one
 * asset left by the former design) are marked claimed, all but the newest. Frozen in time.
 */
export const attachIntentClaims: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `ALTER TABLE catalog.attach_intents ADD COLUMN claimed_until timestamptz;
         UPDATE catalog.attach_intents i SET claimed_until = now()
          WHERE EXISTS (SELECT 1 FROM catalog.attach_intents j
                         WHERE j.tenant_id = i.tenant_id AND j.asset_id = i.asset_id AND j.version_id > i.version_id);
         CREATE UNIQUE INDEX attach_intents_asset_key ON catalog.attach_intents (tenant_id, asset_id) WHERE claimed_until IS NULL;`,
      )
      .execute(db);
  },
};
