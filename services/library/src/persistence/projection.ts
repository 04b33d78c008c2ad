import { sql, type Kysely, type Transaction } from '@catalog/platform';
import type { LibraryDb } from './tables.js';

/** The projection version the tracks were rebuilt with, or null when never (a new or dropped schema). */
export async function projectionVersion(db: Kysely<LibraryDb>): Promise<number | null> {
  const row = await db.selectFrom('projection').select('version').executeTakeFirst();
  return row?.version ?? null;
}

/** Records that the tracks were rebuilt with `version`. */
export async function markProjection(db: Kysely<LibraryDb>, version: number): Promise<void> {
  await db
    .insertInto('projection')
    .values({ version })
    .onConflict((oc) => oc.column('id').doUpdateSet({ version, rebuilt_at: sql<Date>`now()` }))
    .execute();
}

/** The entity's applied event position (`stream:seq`), or null; locks the row until the transaction ends. */
export async function entityPosition(db: Kysely<LibraryDb> | Transaction<LibraryDb>, tenantId: string, entityId: string, lock = false) {
  let query = db
    .selectFrom('entity_positions')
    .select(['stream', 'seq'])
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', entityId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? `${row.stream}:${row.seq}` : null;
}
