import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { getEntityType, listEntityTypes, putEntityType, type EntityTypeDeps } from '../domain/entity-types.js';

/** The entity-type operations of the table (which analyses run automatically per type). */
export function entityTypeOperations(deps: EntityTypeDeps): Operation[] {
  return [
    defineOperation(operationById('listEntityTypes'), async (_input, call) => ({ body: await listEntityTypes(deps, call) })),
    defineOperation(operationById('getEntityType'), async ({ params }, call) => ({ body: await getEntityType(deps, call, params.name) })),
    defineOperation(operationById('putEntityType'), async ({ params, body }, call) => ({
      body: await putEntityType(deps, call, params.name, body.automaticAnalyses, body.cuePointMarkers ?? false),
    })),
  ];
}
