import { operationById } from '@catalog/contracts';
import { defineOperation, fitPage, type Operation } from '@catalog/platform';
import {
  attachDmrn,
  createEntities,
  createEntity,
  deleteEntity,
  detachDmrn,
  getEntity,
  listEntities,
  readEntities,
  updateEntity,
  type EntityDeps,
} from '../domain/entities.js';

/** The entity operations of the table, answered by the domain functions of domain/entities.ts. */
export function entityOperations(deps: EntityDeps): Operation[] {
  return [
    defineOperation(operationById('createEntity'), async ({ body }, call) => ({ body: await createEntity(deps, call, body) })),
    defineOperation(operationById('createEntities'), async ({ body }, call) => ({ body: await createEntities(deps, call, body.entities) })),
    defineOperation(operationById('listEntities'), async ({ query }, call, reply) => ({
      body: await listEntities(deps, call, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('getEntity'), async ({ params }, call) => ({ body: await getEntity(deps, call, params.id) })),
    defineOperation(operationById('readEntities'), async ({ body }, call, reply) => {
      const { entities, missing } = await readEntities(deps, call, body.ids);
      // Whatever would not fit the bus is left out of both lists: the caller asks for it again.
      const fitting = fitPage(entities, entities.length, reply.maxBodyBytes - Buffer.byteLength(JSON.stringify(missing)) - 64).items;
      return { body: { entities: fitting, missing } };
    }),
    defineOperation(operationById('updateEntity'), async ({ params, body }, call) => ({
      body: await updateEntity(deps, call, params.id, body),
    })),
    defineOperation(operationById('deleteEntity'), async ({ params }, call) => {
      await deleteEntity(deps, call, params.id);
      return {};
    }),
    defineOperation(operationById('attachDmrn'), async ({ params, body }, call) => ({
      body: await attachDmrn(deps, call, params.id, body.value),
    })),
    defineOperation(operationById('detachDmrn'), async ({ params }, call) => {
      await detachDmrn(deps, call, params.id);
      return {};
    }),
  ];
}
