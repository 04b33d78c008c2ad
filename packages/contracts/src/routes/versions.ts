import { IdParams } from '../schemas/common.js';
import {
  CreatedVersion,
  CreateVersionBody,
  ListVersionsQuery,
  PutMarkersBody,
  UpdateVersionBody,
  Version,
  VersionList,
  VersionParams,
} from '../schemas/versions.js';
import { catalogApi, type RouteDefinition } from './types.js';

const VersionsPath = '/api/v1/catalog/entities/{id}/versions';
const VersionPath = `${VersionsPath}/{versionId}`;

/** Versions of an entity and their markers, answered by the catalog service. */
export const versionRoutes: RouteDefinition[] = [
  {
    operationId: 'createVersion',
    method: 'POST',
    path: VersionsPath,
    summary:
      'Add a version from a new file (source.upload: returns the signed upload target) or from an asset created earlier (source.assetId)',
    tag: 'Versions',
    service: 'catalog',
    auth: catalogApi,
    params: IdParams,
    body: CreateVersionBody,
    success: { status: 201, description: 'the version, with `upload` when the source is an upload', schema: CreatedVersion },
    errors: [400, 404, 409, 413, 415],
  },
  {
    operationId: 'listVersions',
    method: 'GET',
    path: VersionsPath,
    summary: 'Every version of an entity across kinds (or of one kind), with primary flag, duration, markers and upload status',
    tag: 'Versions',
    service: 'catalog',
    auth: catalogApi,
    params: IdParams,
    query: ListVersionsQuery,
    success: {
      status: 200,
      description:
        'the versions, by kind (AUDIO, ARTWORK, VIDEO), oldest first; all of them unless `hasMore` (a page ends before the reply would be too large)',
      schema: VersionList,
    },
    errors: [400, 404],
  },
  {
    operationId: 'getVersion',
    method: 'GET',
    path: VersionPath,
    summary: 'Read a version',
    tag: 'Versions',
    service: 'catalog',
    auth: catalogApi,
    params: VersionParams,
    success: { status: 200, description: 'the version', schema: Version },
    errors: [404],
  },
  {
    operationId: 'updateVersion',
    method: 'PATCH',
    path: VersionPath,
    summary: 'Change the label or type of a version, or make it the primary of its kind (isPrimary: true)',
    tag: 'Versions',
    service: 'catalog',
    auth: catalogApi,
    params: VersionParams,
    body: UpdateVersionBody,
    success: { status: 200, description: 'the version after the change', schema: Version },
    errors: [400, 404],
  },
  {
    operationId: 'deleteVersion',
    method: 'DELETE',
    path: VersionPath,
    summary: 'Delete a version; deleting the primary makes the newest remaining version of its kind primary',
    tag: 'Versions',
    service: 'catalog',
    auth: catalogApi,
    params: VersionParams,
    success: { status: 204, description: 'deleted' },
    errors: [404],
  },
  {
    operationId: 'putVersionMarkers',
    method: 'PUT',
    path: `${VersionPath}/markers`,
    summary: 'Replace the markers of a version (cue points in milliseconds), checked against its duration',
    tag: 'Versions',
    service: 'catalog',
    auth: catalogApi,
    params: VersionParams,
    body: PutMarkersBody,
    success: { status: 200, description: 'the version with its new markers', schema: Version },
    errors: [400, 404],
  },
];
