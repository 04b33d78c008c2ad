import { adminRoutes } from './routes/admin.js';
import { assetRoutes } from './routes/assets.js';
import { entityRoutes } from './routes/catalog.js';
import { eventRoutes } from './routes/events.js';
import { versionRoutes } from './routes/versions.js';
import type { RouteDefinition, ServiceName } from './routes/types.js';

export * from './routes/types.js';
export { assetListenerSubject } from './routes/assets.js';

/**
 * The one contract source: the gateway router and the OpenAPI document are derived from it.
 * Each area keeps its operations in a file of its own under routes/.
 */
export const routes: RouteDefinition[] = [...entityRoutes, ...versionRoutes, ...assetRoutes, ...eventRoutes, ...adminRoutes];

export function routeById(operationId: string): RouteDefinition {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`unknown operation ${operationId}`);
  return route;
}

export function routesOf(service: ServiceName): RouteDefinition[] {
  return routes.filter((r) => r.service === service);
}
