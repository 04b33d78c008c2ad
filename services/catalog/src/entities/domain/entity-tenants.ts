import type { EntityTenantsPage, ListEntityTenantsQuery } from '@catalog/contracts';
import { withoutTenant, type Kysely } from '@catalog/platform';
import { listEntityTenantIds } from '../persistence/entity-tenants.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * The tenants that have had entities, keyset paged by tenant id (internal `listEntityTenants`,
 * called by the library's rebuild, decision 0102). It acts for no tenant; ids are 36 characters,
 * so a page of at most 1,000 always fits a reply.
 */
export async function listEntityTenants(deps: { db: Kysely<CatalogDb> }, query: ListEntityTenantsQuery): Promise<EntityTenantsPage> {
  const limit = query.limit ?? 500;
  const rows = await withoutTenant(() => listEntityTenantIds(deps.db, { limit: limit + 1, afterId: query.after }));
  const tenants = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { tenants, nextCursor: hasMore ? tenants[tenants.length - 1]! : null, hasMore };
}
