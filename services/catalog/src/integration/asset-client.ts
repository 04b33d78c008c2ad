import type {
  Asset,
  AssetWithUpload,
  AttachAssetRpcBody,
  CreateAssetRpcBody,
  ReleaseAssetRpcBody,
  UploadDescription,
} from '@catalog/contracts';
import { callRpc, replyValue, type CallContext, type RpcCallSettings } from '@catalog/platform';

/** The version an asset becomes the file of; the asset service releases the asset when it is deleted. */
export interface VersionRef {
  entityId: string;
  versionId: string;
}

/**
 * The asset service operations versions need, called over NATS with the caller's context (so the
 * asset service applies the same tenant). Failures come back as the asset service's AppError
 * (400, 404, 409, 413, 415) or a 503/504 when it cannot be reached.
 */
export interface AssetClient {
  /** A new attached asset for version `versionId` of `entityId`, awaiting its upload, with the upload target. */
  createForVersion(call: CallContext, version: VersionRef, upload: UploadDescription): Promise<AssetWithUpload>;
  get(call: CallContext, assetId: string): Promise<Asset>;
  /** Makes an existing asset the file of version `versionId` of `entityId` (retention attached). */
  attach(call: CallContext, assetId: string, version: VersionRef): Promise<Asset>;
  /** Undoes `attach` for a version that was never written: released if still that version's file. */
  release(call: CallContext, assetId: string, versionId: string): Promise<{ released: boolean }>;
}

export function assetClient(rpc: RpcCallSettings): AssetClient {
  const service = 'asset';
  return {
    async createForVersion(call, { entityId, versionId }, upload) {
      const body: CreateAssetRpcBody = { retention: 'attached', upload, entityId, versionId };
      const reply = await callRpc(rpc, service, 'createVersionAsset', { params: {}, query: {}, body }, call);
      return replyValue<AssetWithUpload>(reply);
    },
    async get(call, assetId) {
      return replyValue<Asset>(await callRpc(rpc, service, 'getAsset', { params: { id: assetId }, query: {}, body: null }, call));
    },
    async attach(call, assetId, { entityId, versionId }) {
      const body: AttachAssetRpcBody = { entityId, versionId };
      return replyValue<Asset>(await callRpc(rpc, service, 'attachAsset', { params: { id: assetId }, query: {}, body }, call));
    },
    async release(call, assetId, versionId) {
      const body: ReleaseAssetRpcBody = { versionId };
      return replyValue<{ released: boolean }>(
        await callRpc(rpc, service, 'releaseAsset', { params: { id: assetId }, query: {}, body }, call),
      );
    },
  };
}
