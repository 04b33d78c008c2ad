import type { Kysely, Logger, Operation } from '@catalog/platform';
import type { AssetClient } from '../integration/asset-client.js';
import type { CatalogDb } from '../persistence/tables.js';
import { analysisSourceOperations } from './analysis-operations.js';
import { assetStateOperations } from './asset-state-operations.js';
import { entityOperations } from './entity-operations.js';
import { entityTypeOperations } from './entity-type-operations.js';
import { jobOperations } from './job-operations.js';
import { integrationOperations } from './integration-operations.js';
import { moleculeOperations } from './molecule-operations.js';
import { relationOperations } from './relation-operations.js';
import { tenantOperations } from './tenant-operations.js';
import { versionOperations } from './version-operations.js';

export interface CatalogOperationDeps {
  db: Kysely<CatalogDb>;
  /** The asset service, for the files of versions. */
  assets: AssetClient;
  maxVersionsPerEntity: number;
  /** Import jobs a tenant may have queued or running at once. */
  maxQueuedImportsPerTenant: number;
  logger: Logger;
}

/** Every operation the catalog answers on the bus (its entries of the operation table). */
export function catalogOperations(deps: CatalogOperationDeps): Operation[] {
  return [
    ...entityOperations(deps),
    ...entityTypeOperations(deps),
    ...versionOperations(deps),
    ...jobOperations({ db: deps.db, assets: deps.assets, maxQueuedPerTenant: deps.maxQueuedImportsPerTenant }),
    ...integrationOperations(deps),
    ...moleculeOperations(deps),
    ...relationOperations(deps),
    ...tenantOperations(deps),
    ...analysisSourceOperations(deps),
    ...assetStateOperations(deps),
  ];
}
