import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import type { AssetService } from '../domain/assets.js';
import type { ReleaseOutcome, ReleaseRequest } from '../domain/release.js';

export interface AssetOperationDeps {
  assets: AssetService;
  /** `releaseAsset` of domain/release.ts bound to its dependencies. */
  release: (request: ReleaseRequest) => Promise<ReleaseOutcome>;
  /** The base URL of this replica's HTTP listener (the gateway streams uploads to it). */
  listenerUrl: () => string;
}

/**
 * The asset service's operations on the bus: the public ones of the route table (createAsset,
 * getAsset, confirmAsset, requestAssetUpload, downloadAsset) and the internal ones the catalog and
 * the gateway call (createVersionAsset, attachAsset, releaseAsset, locateAssetListener).
 */
export function assetOperations({ assets, release, listenerUrl }: AssetOperationDeps): Operation[] {
  return [
    defineOperation(operationById('createAsset'), async ({ body }, call) => ({ body: await assets.create(call, body) })),
    defineOperation(operationById('createVersionAsset'), async ({ body }, call) => ({ body: await assets.create(call, body) })),
    defineOperation(operationById('getAsset'), async ({ params }, call) => ({ body: await assets.get(call, params.id.toLowerCase()) })),
    defineOperation(operationById('confirmAsset'), async ({ params }, call) => ({
      body: await assets.confirm(call, params.id.toLowerCase()),
    })),
    defineOperation(operationById('requestAssetUpload'), async ({ params, body }, call) => ({
      body: await assets.requestUpload(call, params.id.toLowerCase(), body),
    })),
    defineOperation(operationById('downloadAsset'), async ({ params }, call) => ({
      body: { location: await assets.downloadLocation(call, params.id.toLowerCase()) },
    })),
    defineOperation(operationById('attachAsset'), async ({ params, body }, call) => ({
      body: await assets.attach(call, params.id.toLowerCase(), body),
    })),
    defineOperation(operationById('releaseAsset'), async ({ params, body }, call) => {
      const outcome = await release({
        tenantId: call.tenantId,
        assetId: params.id.toLowerCase(),
        versionId: body.versionId,
        sourceSystem: call.sourceSystem,
      });
      return { body: { released: outcome === 'released' } };
    }),
    defineOperation(operationById('locateAssetListener'), async () => ({ body: { url: listenerUrl() } })),
  ];
}
