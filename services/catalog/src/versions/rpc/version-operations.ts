import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { deleteVersion, putVersionMarkers, updateVersion } from '../domain/version-changes.js';
import { createVersion, type VersionDeps } from '../domain/version-creation.js';
import { getVersion, listVersions } from '../domain/version-reads.js';

/** The version operations of the table; path ids name the entity (`id`) and the version (`versionId`). */
export function versionOperations(deps: VersionDeps): Operation[] {
  return [
    defineOperation(operationById('createVersion'), async ({ params, body }, call) => ({
      body: await createVersion(deps, call, params.id, body),
    })),
    defineOperation(operationById('listVersions'), async ({ params, query }, call, reply) => ({
      body: await listVersions(deps, call, params.id, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('getVersion'), async ({ params }, call) => ({
      body: await getVersion(deps, call, params.id, params.versionId),
    })),
    defineOperation(operationById('updateVersion'), async ({ params, body }, call) => ({
      body: await updateVersion(deps, call, params.id, params.versionId, body),
    })),
    defineOperation(operationById('deleteVersion'), async ({ params }, call) => {
      await deleteVersion(deps, call, params.id, params.versionId);
      return {};
    }),
    defineOperation(operationById('putVersionMarkers'), async ({ params, body }, call) => ({
      body: await putVersionMarkers(deps, call, params.id, params.versionId, body.markers),
    })),
  ];
}
