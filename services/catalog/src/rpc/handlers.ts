import type {
  AttachDmrnBody,
  CreateEntitiesBody,
  CreateEntityBody,
  ListEntitiesQuery,
  PutEntityTypeBody,
  UpdateEntityBody,
} from '@catalog/contracts';
import type { Kysely, Logger, RpcHandler } from '@catalog/platform';
import {
  attachDmrn,
  createEntities,
  createEntity,
  deleteEntity,
  detachDmrn,
  getEntity,
  listEntities,
  updateEntity,
} from '../domain/entities.js';
import { getEntityType, listEntityTypes, putEntityType } from '../domain/entity-types.js';
import type { AssetClient } from '../integration/asset-client.js';
import type { CatalogDb } from '../persistence/tables.js';
import { validatedHandler } from './validated-handler.js';
import { VERSION_OPERATIONS, versionHandlers } from './version-handlers.js';

export interface CatalogHandlerDeps {
  db: Kysely<CatalogDb>;
  /** The asset service, for the files of versions. */
  assets: AssetClient;
  maxVersionsPerEntity: number;
  logger: Logger;
}

export const CATALOG_OPERATIONS = [
  'createEntity',
  'createEntities',
  'listEntities',
  'getEntity',
  'updateEntity',
  'deleteEntity',
  'attachDmrn',
  'detachDmrn',
  'listEntityTypes',
  'getEntityType',
  'putEntityType',
  ...VERSION_OPERATIONS,
] as const;

export type CatalogOperation = (typeof CATALOG_OPERATIONS)[number];

/** The catalog's RPC operations, by operation id of the route table; each answers with the route's success status. */
export function catalogHandlers(deps: CatalogHandlerDeps): Record<CatalogOperation, RpcHandler> {
  const entity = 'entity';
  const entityType = 'entity type';
  const id = (params: Record<string, string>): string => params.id as string;
  const name = (params: Record<string, string>): string => params.name as string;
  return {
    createEntity: validatedHandler('createEntity', {
      resource: entity,
      handle: async ({ body }, call) => ({ status: 201, body: await createEntity(deps, call, body as CreateEntityBody) }),
    }),
    createEntities: validatedHandler('createEntities', {
      resource: entity,
      handle: async ({ body }, call) => ({ status: 201, body: await createEntities(deps, call, (body as CreateEntitiesBody).entities) }),
    }),
    listEntities: validatedHandler('listEntities', {
      resource: entity,
      handle: async ({ query }, call, reply) => ({
        status: 200,
        body: await listEntities(deps, call, query as ListEntitiesQuery, reply.maxBodyBytes),
      }),
    }),
    getEntity: validatedHandler('getEntity', {
      resource: entity,
      handle: async ({ params }, call) => ({ status: 200, body: await getEntity(deps, call, id(params)) }),
    }),
    updateEntity: validatedHandler('updateEntity', {
      resource: entity,
      handle: async ({ params, body }, call) => ({
        status: 200,
        body: await updateEntity(deps, call, id(params), body as UpdateEntityBody),
      }),
    }),
    deleteEntity: validatedHandler('deleteEntity', {
      resource: entity,
      handle: async ({ params }, call) => {
        await deleteEntity(deps, call, id(params));
        return { status: 204 };
      },
    }),
    attachDmrn: validatedHandler('attachDmrn', {
      resource: entity,
      handle: async ({ params, body }, call) => ({
        status: 200,
        body: await attachDmrn(deps, call, id(params), (body as AttachDmrnBody).value),
      }),
    }),
    detachDmrn: validatedHandler('detachDmrn', {
      resource: entity,
      handle: async ({ params }, call) => {
        await detachDmrn(deps, call, id(params));
        return { status: 204 };
      },
    }),
    listEntityTypes: validatedHandler('listEntityTypes', {
      resource: entityType,
      handle: async (_request, call) => ({ status: 200, body: await listEntityTypes(deps, call) }),
    }),
    getEntityType: validatedHandler('getEntityType', {
      resource: entityType,
      handle: async ({ params }, call) => ({ status: 200, body: await getEntityType(deps, call, name(params)) }),
    }),
    putEntityType: validatedHandler('putEntityType', {
      resource: entityType,
      handle: async ({ params, body }, call) => ({
        status: 200,
        body: await putEntityType(deps, call, name(params), (body as PutEntityTypeBody).automaticAnalyses),
      }),
    }),
    ...versionHandlers(deps),
  };
}
