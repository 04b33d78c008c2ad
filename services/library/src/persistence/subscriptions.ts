import { sql, type Kysely } from 'kysely';
import type { LibraryDb } from './tables.js';

/** Queries of `library.subscriptions`; each runs in the tenant's context (row-level security). */

/** Whether the tenant was last found subscribed; undefined when the library never looked. */
export async function storedSubscription(db: Kysely<LibraryDb>, tenantId: string): Promise<boolean | undefined> {
  const row = await db.selectFrom('subscriptions').select('active').where('tenant_id', '=', tenantId).executeTakeFirst();
  return row?.active;
}

export async function storeSubscription(db: Kysely<LibraryDb>, tenantId: string, active: boolean): Promise<void> {
  await db
    .insertInto('subscriptions')
    .values({ tenant_id: tenantId, active })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ active, changed_at: sql<Date>`now()` }))
    .execute();
}
