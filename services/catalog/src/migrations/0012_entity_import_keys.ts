import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * `catalog.entity_import_keys` (decision 0134): how an import finds again the entity a row made
 * or matched, for rows without a DMRN: by the tenant's old `external_id`, or, for rows with
 * neither, by `natural_key` (a hash of type, title and artist). `job_id` and `row_number` name the
 * import row that last touched the entity, so a second row of the same file for it is a duplicate.
 * One row per entity, gone with it. Frozen in time.
 */
export const entityImportKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.entity_import_keys (
           entity_id uuid PRIMARY KEY REFERENCES catalog.entities (id) ON DELETE CASCADE,
           tenant_id uuid NOT NULL,
           external_id text,
           natural_key text,
           job_id uuid NOT NULL,
           row_number integer NOT NULL
         );
         CREATE UNIQUE INDEX entity_import_keys_external_id_key ON catalog.entity_import_keys (tenant_id, external_id)
           WHERE external_id IS NOT NULL;
         CREATE UNIQUE INDEX entity_import_keys_natural_key ON catalog.entity_import_keys (tenant_id, natural_key)
           WHERE natural_key IS NOT NULL;`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'catalog', 'entity_import_keys');
  },
};
