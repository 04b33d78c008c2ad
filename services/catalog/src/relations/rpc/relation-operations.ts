import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { createRelation, deleteRelation, listRelations, type RelationDeps } from '../domain/relations.js';

/** The relation operations of the table; path ids name the entity (`id`) and the relation (`relationId`). */
export function relationOperations(deps: RelationDeps): Operation[] {
  return [
    defineOperation(operationById('createRelation'), async ({ params, body }, call) => {
      const { relation, created } = await createRelation(deps, call, params.id, body);
      return { status: created ? 201 : 200, body: relation };
    }),
    defineOperation(operationById('listRelations'), async ({ params, query }, call, reply) => ({
      body: await listRelations(deps, call, params.id, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('deleteRelation'), async ({ params }, call) => {
      await deleteRelation(deps, call, params.id, params.relationId);
      return {};
    }),
  ];
}
