import type { Asset } from '@catalog/contracts';
import { callRpc, okReply, type CallContext, type RpcCallSettings } from '@catalog/platform';

/** The catalog operations the asset service calls (decision 0115). */
export interface CatalogClient {
  /**
   * Tells the catalog what a confirmation left of a version's file, with the caller's context
   * (so its automatic analyses carry the confirmation's source system). Throws the catalog's
   * error, or 503/504 when it cannot be reached.
   */
  recordAssetState(call: CallContext, asset: Asset): Promise<void>;
}

export function catalogClient(rpc: RpcCallSettings): CatalogClient {
  return {
    async recordAssetState(call, asset) {
      okReply(await callRpc(rpc, 'catalog', 'recordAssetState', { params: {}, query: {}, body: asset }, call));
    },
  };
}
