import type { Integration } from '@catalog/contracts';
import { callRpc, notFound, replyValue, type RpcCallSettings } from '@catalog/platform';

/** What a binding needs of an integration. */
export type BoundIntegration = Pick<Integration, 'id' | 'sourceSystem'>;

/**
 * The integrations of an organisation, read from the catalog that owns them, acting for that
 * organisation (so another organisation's integration is not found): what a source-system binding
 * names (decision 0149).
 */
export interface IntegrationDirectory {
  /** The organisation's integration of this id; 404 `not_found` when it has none. */
  byId(organizationId: string, integrationId: string, requestId: string): Promise<BoundIntegration>;
  /** The organisation's integration whose source system is this name; 404 `not_found` when it has none. */
  byName(organizationId: string, name: string, requestId: string): Promise<BoundIntegration>;
}

/** A tenant has at most 50 integrations (decision 0132): one page of the listing holds them all. */
const LISTING_PAGE = 200;

export function catalogIntegrations(rpc: RpcCallSettings): IntegrationDirectory {
  const call = (organizationId: string, requestId: string) => ({ tenantId: organizationId, keyId: null, sourceSystem: 'admin', requestId });
  return {
    async byId(organizationId, integrationId, requestId) {
      const request = { params: { id: integrationId }, query: {}, body: null };
      return replyValue<Integration>(await callRpc(rpc, 'catalog', 'getIntegration', request, call(organizationId, requestId)));
    },
    async byName(organizationId, name, requestId) {
      let after: string | null = null;
      do {
        const query: Record<string, string | number> = { limit: LISTING_PAGE, ...(after === null ? {} : { after }) };
        const reply = await callRpc(rpc, 'catalog', 'listIntegrations', { params: {}, query, body: null }, call(organizationId, requestId));
        const page = replyValue<{ integrations: Integration[]; nextCursor: string | null }>(reply);
        const found = page.integrations.find((integration) => integration.sourceSystem === name);
        if (found) return found;
        after = page.nextCursor;
      } while (after !== null);
      throw notFound('integration');
    },
  };
}
