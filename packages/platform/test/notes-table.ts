import { createOutboxTableV1, enableTenantRlsV1, type Migrations } from '@catalog/platform';

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

/** The tables of `notesWithOutbox` as Kysely sees them. */
export interface NotesWithOutboxDb {
  notes: { id: string; tenant_id: string; text: string };
  outbox: { id: string; type: string; batch_id: string; tx_id: string };
}

/** The migrations of a schema with `notes` (with `text`) and an outbox. */
export function notesWithOutbox(schema: string): Migrations {
  return {
    '0001_notes': {
      async up(db) {
        await createNotesTable(db, schema, { text: true });
        await createOutboxTableV1(db, schema);
      },
    },
  };
}
