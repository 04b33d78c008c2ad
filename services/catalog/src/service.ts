import { consumeEvents, runPeriodically, startService, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { CatalogConfig } from './config.js';
import { applyAssetEvent } from './versions/consumers/asset-events.js';
import { consumeImportJobs } from './imports/consumers/import-jobs.js';
import {
  ATTACH_SWEEP_BATCH_SIZE,
  sweepAttachIntents,
  type AttachIntentSweepDeps,
  type AttachSweepResult,
} from './versions/domain/attach-intents.js';
import { sweepLapsedHeartbeats } from './integrations/domain/integration-health.js';
import { assetClient, type AssetClient } from './integration/asset-client.js';
import { importFiles, type ImportFiles } from './imports/integration/import-files.js';
import { catalogMigrations } from './migrations/index.js';
import type { CatalogDb } from './persistence/tables.js';
import { catalogOperations } from './rpc/operations.js';

// The operations alone, for a process that answers them without the rest (the gateway benchmark's single process).
export { catalogOperations, type CatalogOperationDeps } from './rpc/operations.js';

export interface CatalogServiceHandle extends ServiceRuntime<CatalogDb> {
  /** Runs one pass of the attach-intent sweeper now (it also runs every CATALOG_ATTACH_SWEEP_INTERVAL_MS). */
  sweepAttachIntents(): Promise<AttachSweepResult>;
  /** Records the lapsed heartbeats now (also every CATALOG_HEARTBEAT_SWEEP_INTERVAL_MS); how many. */
  sweepHeartbeats(): Promise<number>;
}

export interface CatalogServiceOptions {
  logger?: Logger;
  /** Wraps the client of the asset service the catalog uses (tests put faults between the two). */
  wrapAssetClient?: (client: AssetClient) => AssetClient;
  /** Wraps the reader of import files (tests hold a read halfway). */
  wrapImportFiles?: (files: ImportFiles) => ImportFiles;
}

/**
 * Starts the catalog service: migrations of the `catalog` schema, the outbox relay, the RPC
 * operations of entities, entity types and versions on NATS, the consumer of asset events (upload
 * status of versions' files), the sweeper of attach intents (files of versions never written) and
 * the HTTP listener with health checks. `stop()` of the returned runtime stops all of it.
 */
export async function startCatalogService(config: CatalogConfig, options: CatalogServiceOptions = {}): Promise<CatalogServiceHandle> {
  const settings = { config, schema: 'catalog', migrations: catalogMigrations, outbox: config.outbox, logger: options.logger };
  return startService<CatalogDb, CatalogServiceHandle>({ ...settings, moduleUrl: import.meta.url }, async (runtime) => {
    const { db } = runtime.database;
    const rpc = { nc: runtime.nc, subjects: runtime.subjects, callContext: runtime.callContext };
    const client = assetClient({ ...rpc, timeoutMs: config.assetRpcTimeoutMs });
    const assets = options.wrapAssetClient ? options.wrapAssetClient(client) : client;
    await runtime.serve(
      catalogOperations({
        db,
        assets,
        maxVersionsPerEntity: config.maxVersionsPerEntity,
        maxQueuedImportsPerTenant: config.importJobs.maxQueuedPerTenant,
        logger: runtime.logger,
      }),
    );
    // Asset events (`<prefix>.events.catalog.asset.<what>`) keep the upload status of versions' files.
    consumeEvents(runtime, {
      ...config.assetEvents,
      filterSubject: runtime.subjects.events('catalog', 'asset.>'),
      handle: (event, position) => applyAssetEvent(db, event, position),
    });
    // Import jobs (decision 0134): their job.created events are the work queue.
    const files = importFiles({ ...rpc, timeoutMs: config.assetRpcTimeoutMs }, { timeoutMs: config.importJobs.downloadTimeoutMs });
    const readFiles = options.wrapImportFiles ? options.wrapImportFiles(files) : files;
    consumeImportJobs(runtime, config.importJobs, { db, files: readFiles, logger: runtime.logger });
    const sweeper: AttachIntentSweepDeps = {
      db,
      assets,
      logger: runtime.logger,
      graceMs: config.attachIntentGraceMs,
      // A round's releases run in parallel, each bounded by the RPC timeout: the lease outlasts them.
      claimLeaseMs: 3 * config.assetRpcTimeoutMs,
      batchSize: ATTACH_SWEEP_BATCH_SIZE,
    };
    runPeriodically(runtime, {
      name: 'attach intent sweep',
      intervalMs: config.attachSweepIntervalMs,
      run: () => sweepAttachIntents(sweeper),
    });
    // Integrations whose heartbeat lapsed: their integration.health_changed (decision 0133).
    runPeriodically(runtime, {
      name: 'heartbeat sweep',
      intervalMs: config.heartbeatSweepIntervalMs,
      run: () => sweepLapsedHeartbeats({ db }),
    });
    return Object.assign(runtime, {
      sweepAttachIntents: () => sweepAttachIntents(sweeper),
      sweepHeartbeats: () => sweepLapsedHeartbeats({ db }),
    });
  });
}
