import { sql, type Kysely, type Migration } from 'kysely';
import { createOutboxTableV1, enableTenantRlsV1 } from '@catalog/platform';

/**
 * Entity types, entities (with their DMRN external reference) and the outbox of the catalog
 * schema. Frozen in time: later changes go in new migrations, never edits here.
 */
export const entities: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.entity_types (
           tenant_id uuid NOT NULL,
           name text NOT NULL,
           automatic_analyses text[] NOT NULL DEFAULT '{}',
           created_at timestamptz NOT NULL DEFAULT now(),
           updated_at timestamptz NOT NULL DEFAULT now(),
           PRIMARY KEY (tenant_id, name)
         );

         CREATE TABLE catalog.entities (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           type text NOT NULL,
           title text NOT NULL,
           artist text,
           dmrn text,
           created_at timestamptz NOT NULL DEFAULT now(),
           updated_at timestamptz NOT NULL DEFAULT now()
         );
         CREATE UNIQUE INDEX entities_tenant_dmrn_key ON catalog.entities (tenant_id, dmrn) WHERE dmrn IS NOT NULL;
         CREATE INDEX entities_tenant_id_idx ON catalog.entities (tenant_id, id);
         CREATE INDEX entities_tenant_type_id_idx ON catalog.entities (tenant_id, type, id);`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'catalog', 'entity_types');
    await enableTenantRlsV1(db, 'catalog', 'entities');
    await createOutboxTableV1(db, 'catalog');
  },
};
