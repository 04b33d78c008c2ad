import { enableTenantRlsV1, type Migrations } from '@catalog/platform';

type MigrationDb = Parameters<Migrations[string]['up']>[0];

/** The tenant table `notes` the platform's tests write (`id`, `tenant_id`, a `text` if asked), with forced RLS. */
export async function createNotesTable(db: MigrationDb, schema: string, options: { text?: boolean } = {}): Promise<void> {
  let table = db.schema
    .createTable('notes')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('tenant_id', 'uuid', (c) => c.notNull());
  if (options.text) table = table.addColumn('text', 'text', (c) => c.notNull());
  await table.execute();
  await enableTenantRlsV1(db, schema, 'notes');
}
