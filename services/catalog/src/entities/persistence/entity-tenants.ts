import type { Kysely } from 'kysely';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * The tenants that have had entities, in id order after `afterId`, at most `limit` (the caller
 * reads one more to know whether more follow). Runs outside any tenant context: the
 * tenant-or-system policy of `entity_tenants` shows every row there.
 */
export async function listEntityTenantIds(
  db: Kysely<CatalogDb>,
  options: { limit: number; afterId: string | undefined },
): Promise<string[]> {
  let query = db.selectFrom('entity_tenants').select('tenant_id').orderBy('tenant_id').limit(options.limit);
  if (options.afterId !== undefined) query = query.where('tenant_id', '>', options.afterId);
  return (await query.execute()).map((row) => row.tenant_id);
}
