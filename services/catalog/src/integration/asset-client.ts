import type { Asset, AssetWithUpload, UploadDescription } from '@catalog/contracts';
import { AppError, callRpc, type CallContext, type RpcCallSettings, type RpcReply } from '@catalog/platform';

/**
 * The asset service operations versions need, called over NATS with the caller's context (so the
 * asset service applies the same tenant). Failures come back as the asset service's AppError
 * (400, 404, 409, 413, 415) or a 503/504 when it cannot be reached.
 */
export interface AssetClient {
  /** A new attached asset for a version of `entityId`, awaiting its upload, with the upload target. */
  createForEntity(call: CallContext, entityId: string, upload: UploadDescription): Promise<AssetWithUpload>;
  get(call: CallContext, assetId: string): Promise<Asset>;
  /** Makes an existing asset the file of a version of `entityId` (retention attached). */
  attach(call: CallContext, assetId: string, entityId: string): Promise<Asset>;
}

function unwrap<T>(reply: RpcReply): T {
  if (!reply.ok) throw new AppError(reply.error.status, reply.error.code, reply.error.message, reply.error.details);
  return reply.body as T;
}

export function assetClient(rpc: RpcCallSettings): AssetClient {
  const service = 'asset';
  return {
    async createForEntity(call, entityId, upload) {
      const reply = await callRpc(rpc, service, 'createAsset', { params: {}, query: {}, body: { retention: 'attached', upload, entityId } }, call);
      return unwrap<AssetWithUpload>(reply);
    },
    async get(call, assetId) {
      return unwrap<Asset>(await callRpc(rpc, service, 'getAsset', { params: { id: assetId }, query: {}, body: null }, call));
    },
    async attach(call, assetId, entityId) {
      return unwrap<Asset>(await callRpc(rpc, service, 'attachAsset', { params: { id: assetId }, query: {}, body: { entityId } }, call));
    },
  };
}
