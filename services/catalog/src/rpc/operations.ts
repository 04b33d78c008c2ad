import type { Kysely, Logger, Operation } from '@catalog/platform';
import type { AssetClient } from '../integration/asset-client.js';
import type { CatalogDb } from '../persistence/tables.js';
import { analysisSourceOperations } from '../versions/rpc/analysis-operations.js';
import { assetStateOperations } from '../versions/rpc/asset-state-operations.js';
import { entityOperations } from '../entities/rpc/entity-operations.js';
import { entityTypeOperations } from '../entity-types/rpc/entity-type-operations.js';
import { jobOperations } from '../imports/rpc/job-operations.js';
import { integrationOperations } from '../integrations/rpc/integration-operations.js';
import { moleculeOperations } from '../molecules/rpc/molecule-operations.js';
import { relationOperations } from '../relations/rpc/relation-operations.js';
import { tenantOperations } from '../entities/rpc/tenant-operations.js';
import { versionOperations } from '../versions/rpc/version-operations.js';

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
