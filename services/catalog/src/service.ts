import { routesOf } from '@catalog/contracts';
import { startEventConsumer, startServiceRuntime, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { CatalogConfig } from './config.js';
import { applyAssetEvent } from './domain/asset-events.js';
import { assetClient } from './integration/asset-client.js';
import { catalogMigrations } from './migrations/index.js';
import type { CatalogDb } from './persistence/tables.js';
import { catalogHandlers } from './rpc/handlers.js';
import { packageVersion } from './version.js';

/**
 * Starts the catalog service: migrations of the `catalog` schema, the outbox relay, the RPC
 * operations of entities, entity types and versions on NATS, the consumer of asset events (upload
 * status of versions' files) and the HTTP listener with health checks. `stop()` of the returned
 * runtime stops all of it.
 */
export async function startCatalogService(config: CatalogConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<CatalogDb>> {
  const runtime = await startServiceRuntime<CatalogDb>({
    config,
    schema: 'catalog',
    migrations: catalogMigrations,
    version: packageVersion(),
    outbox: config.outbox,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    const { db } = runtime.database;
    const assets = assetClient({ nc: runtime.nc, subjects: runtime.subjects, timeoutMs: config.assetRpcTimeoutMs });
    const handlers = catalogHandlers({ db, assets, maxVersionsPerEntity: config.maxVersionsPerEntity, logger: runtime.logger });
    const unanswered = routesOf('catalog')
      .map((route) => route.operationId)
      .filter((operationId) => !(operationId in handlers));
    if (unanswered.length > 0) runtime.logger.warn({ operations: unanswered }, 'catalog routes without a handler');
    await runtime.serve(handlers);
    // Asset events (`<prefix>.events.catalog.asset.<what>`) keep the upload status of versions' files.
    const consumer = startEventConsumer({
      nc: runtime.nc,
      subjects: runtime.subjects,
      logger: runtime.logger,
      ...config.assetEvents,
      filterSubject: runtime.subjects.events('catalog', 'asset.>'),
      handle: (event, position) => applyAssetEvent(db, event, position),
    });
    runtime.onStop(() => consumer.stop());
    await runtime.listen();
    return runtime;
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
