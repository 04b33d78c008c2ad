import { sql, type Kysely, type Migration } from 'kysely';

/**
 * `library.tracks.catalog_versions`: the entity's versions as the projection last read them from
 * the catalog (decision 0107). A refresh for `entity.updated` events only (which never change a
 * version) takes them from here instead of reading them again; null (tracks written before this
 * column) means "read them". Frozen in time.
 */
export const trackCatalogVersions: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw(`ALTER TABLE library.tracks ADD COLUMN catalog_versions jsonb;`).execute(db);
  },
};
