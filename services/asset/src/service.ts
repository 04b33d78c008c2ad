import { consumeEvents, runPeriodically, startService, type Logger, type ServiceRuntime } from '@catalog/platform';
import {
  createBlobStore,
  createUrlSigner,
  FsBlobStore,
  randomSigningSecret,
  type BlobStore,
  type UrlSigner,
} from './persistence/blob/index.js';
import type { AssetConfig } from './config.js';
import type { AssetDeps } from './domain/assets.js';
import { catalogClient } from './integration/catalog-client.js';
import { releaseVersionAsset } from './consumers/version-events.js';
import { sweepOnce, type SweeperDeps } from './domain/retention.js';
import { mountBlobRoutes } from './http/listener.js';
import { ffprobeAudio, ffprobeReadiness } from './domain/probe.js';
import { assetMigrations } from './migrations/index.js';
import type { AssetDb } from './persistence/tables.js';
import type { AssetRow } from './persistence/assets.js';
import { verifications } from './domain/verifications.js';
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
 * and the internal downloads the gateway streams), the NATS operations (the listener discovery
 * answer among them), the retention sweeper and the consumer of version deletions that releases
 * their files.
 */
export async function startAssetService(config: AssetConfig, options: { logger?: Logger } = {}): Promise<AssetServiceHandle> {
  // Asset events go from the outbox to the events stream, where the catalog learns status changes.
  const settings = { config, schema: 'asset', migrations: assetMigrations, outbox: true, logger: options.logger };
  return startService<AssetDb, AssetServiceHandle>({ ...settings, moduleUrl: import.meta.url }, async (runtime) => {
    const { logger } = runtime;
    const { store, signer } = await openBlobStore(config, logger);
    let listenerUrl = '';
    const deps: AssetDeps = {
      db: runtime.database.db,
      store,
      signer,
      policy: config,
      probe: ffprobeAudio(config.ffprobePath, config.probeTimeoutMs),
      logger,
      listenerUrl: () => listenerUrl,
      catalog: catalogClient({
        nc: runtime.nc,
        subjects: runtime.subjects,
        callContext: runtime.callContext,
        timeoutMs: config.catalogRpcTimeoutMs,
      }),
      verifications: verifications<AssetRow>((key, error) =>
        logger.warn({ err: error, upload: key }, 'an upload verification nobody waited for any more failed'),
      ),
    };
    // Verifications that outlived their confirmation end before the pool closes.
    runtime.onStop(() => deps.verifications.settled());
    const fsStore = store instanceof FsBlobStore ? store : null;
    // Streamed uploads: no limit on a whole request's time, a least rate of its body instead (decision 0050).
    // Readiness also needs ffprobe: without it no audio upload can be confirmed.
    const server = await runtime.listen(
      (app) => mountBlobRoutes(app, { db: deps.db, store, fsStore, signer, maxUploadBytes: config.maxUploadBytes }),
      { streamedBodies: true, ready: ffprobeReadiness(config.ffprobePath) },
    );
    listenerUrl = config.internalUrl ?? server.url;
    await runtime.serve(assetOperations(deps));
    const sweep = startSweeper(runtime, config, { store, fsStore });
    startVersionEvents(runtime, config, deps);
    logger.info({ backend: store.backend }, 'blob store ready');
    return Object.assign(runtime, { listenerUrl, sweep });
  });
}

/** The URL signer and the blob store of the configured backend, started. */
async function openBlobStore(config: AssetConfig, logger: Logger): Promise<{ store: BlobStore; signer: UrlSigner }> {
  if (!config.signingSecret) {
    logger.warn(
      'BLOB_SIGNING_SECRET is not set: signed URLs use a random key of this process, so they fail on other replicas and after a restart',
    );
  }
  const signer = createUrlSigner(config.signingSecret ?? randomSigningSecret());
  const store = await createBlobStore(config, signer, logger);
  await store.start();
  return { store, signer };
}

/** The retention sweeper, every ASSET_SWEEP_INTERVAL_MS (the fs backend's stale temporary files too); returns one pass. */
function startSweeper(
  runtime: ServiceRuntime<AssetDb>,
  config: AssetConfig,
  { store, fsStore }: { store: BlobStore; fsStore: FsBlobStore | null },
): () => Promise<number> {
  const sweeper: SweeperDeps = {
    db: runtime.database.db,
    store,
    logger: runtime.logger,
    batchSize: config.sweepBatchSize,
    ...(fsStore ? { housekeeping: async () => void (await fsStore.removeStaleTemporaryFiles(STALE_TEMP_MS)) } : {}),
  };
  runPeriodically(runtime, { name: 'retention sweep', intervalMs: config.sweepIntervalMs, run: () => sweepOnce(sweeper) });
  return () => sweepOnce(sweeper);
}

/** The consumer of the catalog's `version.deleted` events, which releases the deleted versions' files. */
function startVersionEvents(runtime: ServiceRuntime<AssetDb>, config: AssetConfig, deps: AssetDeps): void {
  consumeEvents(runtime, {
    ...config.versionEvents,
    filterSubject: runtime.subjects.events('catalog', 'version.deleted'),
    handle: (event) => releaseVersionAsset(deps, event),
  });
}
