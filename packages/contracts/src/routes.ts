import { adminRoutes } from './routes/admin.js';
import { analysisRoutes } from './routes/analyses.js';
import { assetRoutes } from './routes/assets.js';
import { entityRoutes } from './routes/catalog.js';
import { eventRoutes } from './routes/events.js';
import { integrationRoutes } from './routes/integrations.js';
import { internalOperations } from './routes/internal.js';
import { jobRoutes } from './routes/jobs.js';
import { libraryRoutes } from './routes/library.js';
import { moleculeRoutes } from './routes/molecules.js';
import { relationRoutes } from './routes/relations.js';
import { versionRoutes } from './routes/versions.js';
import type { OperationDefinition, RouteDefinition, ServiceName } from './routes/types.js';

export * from './routes/types.js';
export { internalOperations } from './routes/internal.js';

/**
 * The one contract source: the gateway router, the OpenAPI document, the services' operation
 * boundary (`defineOperation` of the platform) and the NATS permissions are derived from it.
 * Each area keeps its operations in a file of its own under routes/.
 */
export const routes = [
  ...entityRoutes,
  ...versionRoutes,
  ...relationRoutes,
  ...moleculeRoutes,
  ...assetRoutes,
  ...analysisRoutes,
  ...eventRoutes,
  ...integrationRoutes,
  ...jobRoutes,
  ...libraryRoutes,
  ...adminRoutes,
] as const;

/** Every operation on the bus: the public routes and the internal operations. */
export const operations = [...routes, ...internalOperations] as const;

/** The operation ids of the table. */
export type OperationId = (typeof operations)[number]['operationId'];

/** The definition of one operation, with its exact schema types (for `defineOperation`). */
export type OperationOf<Id extends OperationId> = Extract<(typeof operations)[number], { operationId: Id }>;

export function operationById<Id extends OperationId>(operationId: Id): OperationOf<Id> {
  const found = (operations as readonly OperationDefinition[]).find((o) => o.operationId === operationId);
  if (!found) throw new Error(`unknown operation ${operationId}`);
  return found as OperationOf<Id>;
}

export function routeById(operationId: string): RouteDefinition {
  const route = (routes as readonly RouteDefinition[]).find((r) => r.operationId === operationId);
  if (!route) throw new Error(`unknown operation ${operationId}`);
  return route;
}

/** The operations `service` answers on the bus (public and internal). */
export function operationsOf(service: ServiceName): OperationDefinition[] {
  return (operations as readonly OperationDefinition[]).filter((o) => o.service === service);
}

export function routesOf(service: ServiceName): RouteDefinition[] {
  return (routes as readonly RouteDefinition[]).filter((r) => r.service === service);
}
