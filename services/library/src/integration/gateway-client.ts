import type { OrganizationProducts } from '@catalog/contracts';
import { AppError, callRpc, newId, replyValue, type RpcCallSettings } from '@catalog/platform';

/** What the library asks the gateway, which owns organisations and their plans. */
export interface GatewayReader {
  /** The products of the tenant's organisation; none for an organisation that does not exist. */
  products(tenantId: string): Promise<OrganizationProducts['products']>;
}

export function gatewayReader(rpc: RpcCallSettings): GatewayReader {
  return {
    async products(tenantId) {
      const call = { tenantId, keyId: null, sourceSystem: 'library', requestId: newId() };
      try {
        const reply = await callRpc(rpc, 'gateway', 'getOrganizationProducts', { params: {}, query: {}, body: null }, call);
        return replyValue<OrganizationProducts>(reply).products;
      } catch (error) {
        if (error instanceof AppError && error.status === 404) return [];
        throw error;
      }
    },
  };
}
