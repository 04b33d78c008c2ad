import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Assets of kind DATA: the JSON Lines and CSV files import jobs read (decision 0134), standalone
 * only. Frozen in time.
 */
export const dataAssets: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `ALTER TABLE asset.assets DROP CONSTRAINT assets_kind_check;
         ALTER TABLE asset.assets ADD CONSTRAINT assets_kind_check CHECK (kind IN ('AUDIO', 'ARTWORK', 'VIDEO', 'DATA'));`,
      )
      .execute(db);
  },
};
