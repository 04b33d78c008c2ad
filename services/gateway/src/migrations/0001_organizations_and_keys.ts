import { sql, type Kysely, type Migration } from 'kysely';

/** Organisations (tenants) with their plan products, and their API keys. Frozen in time. */
export const organizationsAndKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('organizations')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('products', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'bytea', (c) => c.notNull())
      .addColumn('permissions', sql`text[]`, (c) => c.notNull())
      .addColumn('source_system', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('rotated_at', 'timestamptz')
      .addColumn('revoked_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('api_keys_by_organization').on('api_keys').columns(['organization_id', 'created_at']).execute();
  },
};
