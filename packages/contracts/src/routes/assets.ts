import { Asset, AssetWithUpload, ConfirmAssetBody, CreateAssetBody, UploadDescription } from '../schemas/assets.js';
import { IdParams } from '../schemas/common.js';
import { catalogApi, type RouteDefinition } from './types.js';

const AssetPath = '/api/v1/catalog/assets/{id}';

/**
 * Assets (files), answered by the asset service. The bytes themselves never pass through these
 * operations: they go to the signed `upload.url` and come back from the download operation, which
 * the gateway streams from the asset service's HTTP listener.
 */
export const assetRoutes = [
  {
    operationId: 'createAsset',
    method: 'POST',
    path: '/api/v1/catalog/assets',
    summary: 'Create an asset and get a signed upload target (retention "standalone" for a temporary file)',
    tag: 'Assets',
    service: 'asset',
    auth: catalogApi,
    idempotent: true,
    body: CreateAssetBody,
    success: { status: 201, description: 'the asset (PENDING_UPLOAD), its id as assetId, and the upload target', schema: AssetWithUpload },
    errors: [400, 413, 415],
  },
  {
    operationId: 'getAsset',
    method: 'GET',
    path: AssetPath,
    summary: 'Read an asset: status, kind, size, checksum, duration',
    tag: 'Assets',
    service: 'asset',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'asset' },
    success: { status: 200, description: 'the asset', schema: Asset },
    errors: [404],
    alsoCalledBy: ['catalog', 'analysis'],
  },
  {
    operationId: 'confirmAsset',
    method: 'POST',
    path: `${AssetPath}/confirm`,
    summary: 'Confirm the upload: checks the stored bytes against the declared size and checksum; idempotent; the body may be left out',
    tag: 'Assets',
    service: 'asset',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'asset' },
    body: ConfirmAssetBody,
    bodyOptional: true,
    success: { status: 200, description: 'the asset, ONLINE', schema: Asset },
    // 503: audio cannot be checked (ffprobe missing); the asset keeps waiting.
    errors: [404, 409, 503],
  },
  {
    operationId: 'requestAssetUpload',
    method: 'POST',
    path: `${AssetPath}/upload`,
    summary: 'Get a new upload target for an asset that is not ONLINE yet (after a FAILED confirmation or an expired URL)',
    tag: 'Assets',
    service: 'asset',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'asset' },
    body: UploadDescription,
    success: { status: 200, description: 'the asset (PENDING_UPLOAD) and the new upload target', schema: AssetWithUpload },
    errors: [400, 404, 409, 413, 415],
  },
  {
    operationId: 'downloadAsset',
    method: 'GET',
    path: `${AssetPath}/download`,
    summary: 'Download the file of an ONLINE asset (streamed; Range requests give 206)',
    tag: 'Assets',
    service: 'asset',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'asset' },
    success: { status: 200, description: 'the file', stream: true },
    errors: [404, 409, 416],
    // The analysis service streams the signed location to a file of its own to analyse it; the
    // catalog reads an import job's file (decision 0134).
    alsoCalledBy: ['analysis', 'catalog'],
  },
] as const satisfies readonly RouteDefinition[];
