import { routesOf } from '@catalog/contracts';
import { startServiceRuntime, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { CatalogConfig } from './config.js';
import { catalogMigrations } from './migrations/index.js';
import type { CatalogDb } from './persistence/tables.js';
import { catalogHandlers } from './rpc/handlers.js';
import { packageVersion } from './version.js';

/**
 * Starts the catalog service: migrations of the `catalog` schema, the RPC operations of entities
 * and entity types on NATS, and the HTTP listener with health checks. `stop()` of the returned
 * runtime stops all of it.
 */
export async function startCatalogService(config: CatalogConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<CatalogDb>> {
  const runtime = await startServiceRuntime<CatalogDb>({
    config,
    schema: 'catalog',
    migrations: catalogMigrations,
    version: packageVersion(),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    const handlers = catalogHandlers({ db: runtime.database.db });
    const unanswered = routesOf('catalog')
      .map((route) => route.operationId)
      .filter((operationId) => !(operationId in handlers));
    if (unanswered.length > 0) runtime.logger.warn({ operations: unanswered }, 'catalog routes without a handler');
    await runtime.serve(handlers);
    await runtime.listen();
    return runtime;
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
