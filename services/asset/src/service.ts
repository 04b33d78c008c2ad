import {
  packageVersion,
  startEventConsumer,
  startPeriodicTask,
  startServiceRuntime,
  type Logger,
  type ServiceRuntime,
} from '@catalog/platform';
import { createBlobStore, createUrlSigner, FsBlobStore, randomSigningSecret } from './blob/index.js';
import type { AssetConfig } from './config.js';
import { AssetService } from './domain/assets.js';
import { releaseAsset, releaseVersionAsset } from './domain/release.js';
import { sweepOnce, type SweeperDeps } from './domain/retention.js';
import { mountBlobRoutes } from './http/listener.js';
import { ffprobeAudio, ffprobeReadiness } from './media/probe.js';
import { assetMigrations } from './migrations/index.js';
import type { AssetDb } from './persistence/tables.js';
import { assetOperations } from './rpc/operations.js';

export interface AssetServiceHandle extends ServiceRuntime<AssetDb> {
  /** Base URL of this replica's HTTP listener. */
  listenerUrl: string;
  /** Runs one retention sweep now (the sweeper also runs on its own every ASSET_SWEEP_INTERVAL_MS). */
  sweep(): Promise<number>;
}

const STALE_TEMP_MS = 24 * 3600 * 1000;

/**
 * Starts the asset service: migrations, the blob store (fs or s3), its HTTP listener (fs uploads
 * and the internal downloads the gateway streams), the NATS operations, the listener discovery
 * answer, the retention sweeper and the consumer of version deletions that releases their files.
 */
export async function startAssetService(config: AssetConfig, options: { logger?: Logger } = {}): Promise<AssetServiceHandle> {
  const runtime = await startServiceRuntime<AssetDb>({
    config,
    schema: 'asset',
    migrations: assetMigrations,
    version: packageVersion(import.meta.url),
    // Asset events go from the outbox to the events stream, where the catalog learns status changes.
    outbox: true,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    const { logger } = runtime;
    if (!config.signingSecret) {
      logger.warn(
        'BLOB_SIGNING_SECRET is not set: signed URLs use a random key of this process, so they fail on other replicas and after a restart',
      );
    }
    const signer = createUrlSigner(config.signingSecret ?? randomSigningSecret());
    const store = await createBlobStore(config, signer, logger);
    await store.start();
    let listenerUrl = '';
    const assets = new AssetService({
      db: runtime.database.db,
      store,
      signer,
      policy: config,
      probe: ffprobeAudio(config.ffprobePath, config.probeTimeoutMs),
      logger,
      listenerUrl: () => listenerUrl,
    });
    const fsStore = store instanceof FsBlobStore ? store : null;
    // Streamed uploads: no limit on a whole request's time, a least rate of its body instead (decision 0050).
    // Readiness also needs ffprobe: without it no audio upload can be confirmed.
    const server = await runtime.listen(
      (app) => mountBlobRoutes(app, { assets, store, fsStore, signer, maxUploadBytes: config.maxUploadBytes }),
      {
        streamedBodies: true,
        ready: ffprobeReadiness(config.ffprobePath),
      },
    );
    listenerUrl = config.internalUrl ?? server.url;
    const releaseDeps = { db: runtime.database.db, policy: config };
    await runtime.serve(
      assetOperations({ assets, release: (request) => releaseAsset(releaseDeps, request), listenerUrl: () => listenerUrl }),
    );
    const sweeper: SweeperDeps = {
      db: runtime.database.db,
      store,
      logger,
      batchSize: config.sweepBatchSize,
      ...(fsStore ? { housekeeping: async () => void (await fsStore.removeStaleTemporaryFiles(STALE_TEMP_MS)) } : {}),
    };
    runtime.onStop(
      startPeriodicTask({ name: 'retention sweep', intervalMs: config.sweepIntervalMs, logger, run: () => sweepOnce(sweeper) }),
    );
    const versionEvents = startEventConsumer({
      nc: runtime.nc,
      subjects: runtime.subjects,
      logger,
      ...config.versionEvents,
      filterSubject: runtime.subjects.events('catalog', 'version.deleted'),
      handle: (event) => releaseVersionAsset(releaseDeps, event),
    });
    runtime.onStop(() => versionEvents.stop());
    logger.info({ backend: store.backend }, 'blob store ready');
    return Object.assign(runtime, { listenerUrl, sweep: () => sweepOnce(sweeper) });
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
