import { CreateRelationBody, ListRelationsQuery, Relation, RelationList, RelationParams } from '../schemas/relations.js';
import { IdParams } from '../schemas/common.js';
import { catalogApi, type RouteDefinition } from './types.js';

const RelationsPath = '/api/v1/catalog/entities/{id}/relations';

/** Relations between entities (decision 0136), answered by the catalog service. */
export const relationRoutes = [
  {
    operationId: 'createRelation',
    method: 'POST',
    path: RelationsPath,
    summary:
      'Relate the entity to another one of the tenant (a typed, directed relation; the entity is its source); the same type and target again answer the existing relation',
    tag: 'Relations',
    service: 'catalog',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'entity' },
    idempotent: true,
    body: CreateRelationBody,
    success: {
      status: 201,
      description: 'the relation created',
      schema: Relation,
      alsoStatus: {
        status: 200,
        description:
          'the existing relation: the entity has one of that type to that target already (same_work_as: either way); nothing changed',
      },
    },
    errors: [400, 404, 409],
  },
  {
    operationId: 'listRelations',
    method: 'GET',
    path: RelationsPath,
    summary: 'The relations of an entity, outgoing, incoming or both, of one type or all, oldest first (keyset pagination)',
    tag: 'Relations',
    service: 'catalog',
    auth: catalogApi,
    // The library's rebuild reads the relations of each entity (decision 0136).
    alsoCalledBy: ['library'],
    params: IdParams,
    resources: { id: 'entity' },
    query: ListRelationsQuery,
    success: { status: 200, description: 'a page of relations, each with its direction seen from the entity', schema: RelationList },
    errors: [400, 404],
  },
  {
    operationId: 'deleteRelation',
    method: 'DELETE',
    path: `${RelationsPath}/{relationId}`,
    summary: 'Delete a relation of the entity (from either end)',
    tag: 'Relations',
    service: 'catalog',
    auth: catalogApi,
    params: RelationParams,
    resources: { id: 'entity', relationId: 'relation' },
    success: { status: 204, description: 'deleted' },
    errors: [404],
  },
] as const satisfies readonly RouteDefinition[];
