import { sql, type Kysely, type Migration } from 'kysely';

/**
 * An integration's source system apart from its name (decision 0160): the name is free text a
 * person reads, the source system the slug its bound keys' writes carry, unique per tenant. Until
 * now the name was both, so each row's source system is its name. Frozen in time.
 */
export const integrationSourceSystem: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `ALTER TABLE catalog.integrations ADD COLUMN source_system text;
         ALTER TABLE catalog.integrations NO FORCE ROW LEVEL SECURITY;
         UPDATE catalog.integrations SET source_system = name;
         ALTER TABLE catalog.integrations FORCE ROW LEVEL SECURITY;
         ALTER TABLE catalog.integrations ALTER COLUMN source_system SET NOT NULL;
         CREATE UNIQUE INDEX integrations_tenant_source_system_key ON catalog.integrations (tenant_id, source_system);`,
      )
      .execute(db);
  },
};
