import { operationById } from '@catalog/contracts';
import { defineOperation, type Kysely, type Operation } from '@catalog/platform';
import { listEntityTenants } from '../domain/entity-tenants.js';
import type { CatalogDb } from '../../persistence/tables.js';

/** `listEntityTenants` (internal, called by the library's rebuild, decision 0102). */
export function tenantOperations(deps: { db: Kysely<CatalogDb> }): Operation[] {
  return [defineOperation(operationById('listEntityTenants'), async ({ query }) => ({ body: await listEntityTenants(deps, query) }))];
}
