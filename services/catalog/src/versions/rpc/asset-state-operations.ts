import { operationById } from '@catalog/contracts';
import { defineOperation, type Kysely, type Operation } from '@catalog/platform';
import { recordAssetState } from '../domain/file-states.js';
import type { CatalogDb } from '../../persistence/tables.js';

/** The internal operation the asset service calls before a confirmation answers (decision 0115). */
export function assetStateOperations(deps: { db: Kysely<CatalogDb> }): Operation[] {
  return [
    defineOperation(operationById('recordAssetState'), async ({ body }, call) => ({ body: await recordAssetState(deps, call, body) })),
  ];
}
