import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * The relations of the library's tracks (decision 0136), from the catalog's relation events:
 * - `relations`: one row per relation; `deleted` once its `relation.deleted` was applied (the row
 *   stays, so a `relation.created` delivered again later changes nothing). The track detail lists
 *   a track's relations, the listing's `relatedTo` filters by them.
 * - `entity_titles`: the title of every entity the projection has read, kept current by its
 *   refreshes (a renamed entity's relations show the new title).
 * Frozen in time.
 */
export const relations: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE library.relations (
           tenant_id uuid NOT NULL,
           relation_id uuid NOT NULL,
           type text NOT NULL,
           source_id uuid NOT NULL,
           target_id uuid NOT NULL,
           deleted boolean NOT NULL DEFAULT false,
           PRIMARY KEY (tenant_id, relation_id)
         );
         CREATE INDEX relations_by_source ON library.relations (tenant_id, source_id, relation_id) WHERE NOT deleted;
         CREATE INDEX relations_by_target ON library.relations (tenant_id, target_id, relation_id) WHERE NOT deleted;

         CREATE TABLE library.entity_titles (
           tenant_id uuid NOT NULL,
           entity_id uuid NOT NULL,
           title text NOT NULL,
           PRIMARY KEY (tenant_id, entity_id)
         );`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'library', 'relations');
    await enableTenantRlsV1(db, 'library', 'entity_titles');
  },
};
