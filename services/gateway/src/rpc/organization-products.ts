import { operationById } from '@catalog/contracts';
import { defineOperation, packageVersion, serveRpc, type ServiceRuntime } from '@catalog/platform';
import { organizationProducts } from '../domain/organization-products.js';
import type { GatewayDb } from '../persistence/tables.js';

/**
 * Serves the gateway's internal operations on the bus: the products of the calling tenant's
 * organisation, which the library asks for before it projects a tenant's events (decision 0149).
 * The gateway's public and admin operations are answered over HTTP only, never here.
 */
export async function serveGatewayOperations(runtime: ServiceRuntime<GatewayDb>, shutdownTimeoutMs: number): Promise<void> {
  const products = defineOperation(operationById('getOrganizationProducts'), async (_input, call) => ({
    body: await organizationProducts(runtime.database.db, call.tenantId),
  }));
  const server = await serveRpc({
    nc: runtime.nc,
    subjects: runtime.subjects,
    callContext: runtime.callContext,
    service: 'gateway',
    version: packageVersion(import.meta.url),
    handlers: { [products.definition.operationId]: products.handle },
    logger: runtime.logger,
  });
  runtime.onStop(() => server.stop(shutdownTimeoutMs));
}
