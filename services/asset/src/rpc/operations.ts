import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { attachAsset, downloadLocation, getAsset, type AssetDeps } from '../domain/assets.js';
import { confirmAsset } from '../domain/confirmation.js';
import { releaseAsset } from '../domain/release.js';
import { createAsset, requestAssetUpload } from '../domain/upload-targets.js';

/**
 * The asset service's operations on the bus, answered by the domain functions: the public ones of
 * the route table (createAsset, getAsset, confirmAsset, requestAssetUpload, downloadAsset) and the
 * internal ones the catalog and the gateway call (createVersionAsset, attachAsset, releaseAsset,
 * locateAssetListener).
 */
export function assetOperations(deps: AssetDeps): Operation[] {
  return [
    defineOperation(operationById('createAsset'), async ({ body }, call) => ({ body: await createAsset(deps, call, body) })),
    defineOperation(operationById('createVersionAsset'), async ({ body }, call) => ({ body: await createAsset(deps, call, body) })),
    defineOperation(operationById('getAsset'), async ({ params }, call) => ({ body: await getAsset(deps, call, params.id) })),
    defineOperation(operationById('confirmAsset'), async ({ params }, call) => ({
      body: await confirmAsset(deps, call, params.id),
    })),
    defineOperation(operationById('requestAssetUpload'), async ({ params, body }, call) => ({
      body: await requestAssetUpload(deps, call, params.id, body),
    })),
    defineOperation(operationById('downloadAsset'), async ({ params }, call) => ({
      body: { location: await downloadLocation(deps, call, params.id) },
    })),
    defineOperation(operationById('attachAsset'), async ({ params, body }, call) => ({
      body: await attachAsset(deps, call, params.id, body),
    })),
    defineOperation(operationById('releaseAsset'), async ({ params, body }, call) => {
      const outcome = await releaseAsset(deps, {
        tenantId: call.tenantId,
        assetId: params.id,
        versionId: body.versionId,
        sourceSystem: call.sourceSystem,
      });
      return { body: { released: outcome === 'released' } };
    }),
    defineOperation(operationById('locateAssetListener'), async () => ({ body: { url: deps.listenerUrl() } })),
  ];
}
