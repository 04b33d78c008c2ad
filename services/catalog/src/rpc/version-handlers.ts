import type { CreateVersionBody, ListVersionsQuery, PutMarkersBody, UpdateVersionBody } from '@catalog/contracts';
import type { RpcHandler } from '@catalog/platform';
import { createVersion } from '../domain/version-creation.js';
import { deleteVersion, getVersion, listVersions, putVersionMarkers, updateVersion, type VersionDeps } from '../domain/versions.js';
import { validatedHandler } from './validated-handler.js';

export const VERSION_OPERATIONS = [
  'createVersion',
  'listVersions',
  'getVersion',
  'updateVersion',
  'deleteVersion',
  'putVersionMarkers',
] as const;
export type VersionOperation = (typeof VERSION_OPERATIONS)[number];

/** The version operations of the route table; path ids name the entity (`id`) and the version (`versionId`). */
export function versionHandlers(deps: VersionDeps): Record<VersionOperation, RpcHandler> {
  const resource = { id: 'entity', versionId: 'version' };
  const entityId = (params: Record<string, string>): string => params.id as string;
  const versionId = (params: Record<string, string>): string => params.versionId as string;
  return {
    createVersion: validatedHandler('createVersion', {
      resource,
      handle: async ({ params, body }, call) => ({
        status: 201,
        body: await createVersion(deps, call, entityId(params), body as CreateVersionBody),
      }),
    }),
    listVersions: validatedHandler('listVersions', {
      resource,
      handle: async ({ params, query }, call, reply) => ({
        status: 200,
        body: await listVersions(deps, call, entityId(params), query as ListVersionsQuery, reply.maxBodyBytes),
      }),
    }),
    getVersion: validatedHandler('getVersion', {
      resource,
      handle: async ({ params }, call) => ({ status: 200, body: await getVersion(deps, call, entityId(params), versionId(params)) }),
    }),
    updateVersion: validatedHandler('updateVersion', {
      resource,
      handle: async ({ params, body }, call) => ({
        status: 200,
        body: await updateVersion(deps, call, entityId(params), versionId(params), body as UpdateVersionBody),
      }),
    }),
    deleteVersion: validatedHandler('deleteVersion', {
      resource,
      handle: async ({ params }, call) => {
        await deleteVersion(deps, call, entityId(params), versionId(params));
        return { status: 204 };
      },
    }),
    putVersionMarkers: validatedHandler('putVersionMarkers', {
      resource,
      handle: async ({ params, body }, call) => ({
        status: 200,
        body: await putVersionMarkers(deps, call, entityId(params), versionId(params), (body as PutMarkersBody).markers),
      }),
    }),
  };
}
