import { operationById } from '@catalog/contracts';
import { defineOperation, withoutTenant, type Kysely, type Operation } from '@catalog/platform';
import { listEntityTenantIds } from '../persistence/entity-tenants.js';
import type { CatalogDb } from '../persistence/tables.js';

/**
 * `listEntityTenants` (internal, called by the library's rebuild, decision 0102): the tenants that
 * have had entities, keyset paged by tenant id. It acts for no tenant; ids are 36 characters, so a
 * page of at most 1,000 always fits a reply.
 */
export function tenantOperations(deps: { db: Kysely<CatalogDb> }): Operation[] {
  return [
    defineOperation(operationById('listEntityTenants'), async ({ query }) => {
      const limit = query.limit ?? 500;
      const rows = await withoutTenant(() => listEntityTenantIds(deps.db, { limit: limit + 1, afterId: query.after }));
      const tenants = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      return { body: { tenants, nextCursor: hasMore ? tenants[tenants.length - 1]! : null, hasMore } };
    }),
  ];
}
