import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantOrSystemRlsV1 } from '@catalog/platform';

/**
 * `catalog.entity_tenants`: every tenant that ever had an entity, for the internal operation
 * `listEntityTenants` (the library's rebuild walks the tenants, decision 0102). Kept by a statement
 * trigger on inserts into `entities`, so no write path has to remember it; tenants are never
 * removed (a tenant whose entities are all gone lists no entities). Under the tenant-or-system
 * policy: bound to a tenant, code sees its own row; outside any tenant, every row. The backfill
 * lifts the forced row-level security of `entities` for this migration's transaction only (the
 * owner then reads every row). Frozen in time.
 */
export const entityTenants: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.entity_tenants (
           tenant_id uuid PRIMARY KEY,
           created_at timestamptz NOT NULL DEFAULT now()
         );

         CREATE FUNCTION catalog.record_entity_tenants() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO catalog.entity_tenants (tenant_id)
             SELECT DISTINCT tenant_id FROM new_entities
             ON CONFLICT DO NOTHING;
           RETURN NULL;
         END $$;

         CREATE TRIGGER entities_record_tenants
           AFTER INSERT ON catalog.entities
           REFERENCING NEW TABLE AS new_entities
           FOR EACH STATEMENT EXECUTE FUNCTION catalog.record_entity_tenants();

         ALTER TABLE catalog.entities NO FORCE ROW LEVEL SECURITY;
         INSERT INTO catalog.entity_tenants (tenant_id) SELECT DISTINCT tenant_id FROM catalog.entities ON CONFLICT DO NOTHING;
         ALTER TABLE catalog.entities FORCE ROW LEVEL SECURITY;`,
      )
      .execute(db);
    await enableTenantOrSystemRlsV1(db, 'catalog', 'entity_tenants');
  },
};
