import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The version whose file an asset is (given by the catalog when it creates or attaches the asset
 * for a version): its deletion releases the asset. Null for assets attached before this column
 * existed, and for standalone ones. Frozen in time.
 */
export const assetVersions: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE asset.assets ADD COLUMN version_id uuid`.execute(db);
  },
};
