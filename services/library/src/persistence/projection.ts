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

/** The entity ids of a tenant's tracks after `after`, in order, `limit` at most (the rebuild's sweep). */
export async function trackEntityPage(db: Kysely<LibraryDb>, tenantId: string, after: string | null, limit: number): Promise<string[]> {
  let query = db.selectFrom('tracks').select('entity_id').where('tenant_id', '=', tenantId).orderBy('entity_id').limit(limit);
  if (after !== null) query = query.where('entity_id', '>', after);
  return (await query.execute()).map((r) => r.entity_id);
}

const REBUILD_LOCK = 'library:rebuild';

/**
 * Runs `fn` holding the rebuild lock (a session advisory lock on one connection of the pool, free
 * again when that connection ends), so one rebuild runs at a time across replicas (decision 0104);
 * `{ ran: false }` at once when another session holds it.
 */
export async function withRebuildLock<T>(db: Kysely<LibraryDb>, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtext(${REBUILD_LOCK})) as locked`.execute(conn);
    if (rows[0]?.locked !== true) return { ran: false as const };
    try {
      return { ran: true as const, value: await fn() };
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${REBUILD_LOCK}))`.execute(conn);
    }
  });
}
