import { inTenantTransaction, type Kysely } from '@catalog/platform';
import type { CatalogReader } from '../integration/catalog-client.js';
import { addMissingAssignments } from '../persistence/assignments.js';
import type { LibraryDb } from '../persistence/tables.js';

/** What restoring a tenant's assignments reads with and writes to. */
export interface AssignmentRestoreDeps {
  db: Kysely<LibraryDb>;
  catalog: CatalogReader;
}

/**
 * The rebuild's part for assignments (decision 0142): every integration of the tenant
 * (`listIntegrations`), each page of its assignments (`listAssignments`) read outside any
 * transaction and the rows the library lacks added in one transaction per page. A row the
 * assignment events wrote stays as they left it (a newer state or a removal is never undone); a
 * restored row gives way to the next event of its assignment. False when stopped midway.
 */
export async function restoreAssignments(deps: AssignmentRestoreDeps, tenantId: string, signal?: AbortSignal): Promise<boolean> {
  let integrationsAfter: string | null = null;
  do {
    const integrations = await deps.catalog.integrationPage(tenantId, integrationsAfter);
    for (const integrationId of integrations.ids) {
      let after: string | null = null;
      do {
        if (signal?.aborted) return false;
        const page = await deps.catalog.assignmentPage(tenantId, integrationId, after);
        const rows = page.assignments.map((a) => ({ integrationId: a.integrationId, entityId: a.entityId, syncState: a.syncState }));
        await inTenantTransaction(deps.db, tenantId, (trx) => addMissingAssignments(trx, tenantId, rows));
        after = page.nextCursor;
      } while (after !== null);
    }
    integrationsAfter = integrations.nextCursor;
  } while (integrationsAfter !== null);
  return true;
}
