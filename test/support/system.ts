import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig, type Logger } from '@catalog/platform';
import { createTestDatabase, serviceEnvironment, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { gatewayConfig, startGateway } from '@catalog/gateway';
import { catalogConfig, startCatalogService, type CatalogServiceOptions } from '@catalog/catalog';
import { assetConfig, startAssetService } from '@catalog/asset';
import { analysisConfig, startAnalysisService, type AnalysisServiceOptions } from '@catalog/analysis';
import { eventsConfig, startEventsService } from '@catalog/events';
import { libraryConfig, startLibraryService } from '@catalog/library';

export const ADMIN_TOKEN = 'system-test-admin-token';

export interface RunningSystem {
  baseUrl: string;
  /** The port the asset service's listener bound (its ASSET_HTTP_PORT is 0 unless overridden). */
  assetPort: number;
  env: Record<string, string>;
  database: TestDatabase;
  /** Stops the catalog service (its operations then have no responder) until `startCatalog`. */
  stopCatalog(): Promise<void>;
  /** Starts the catalog service again after `stopCatalog`, with the same configuration. */
  startCatalog(): Promise<void>;
  /** Stops every service and leaves the database as they left it (for checks of the schema alone). */
  stopServices(): Promise<void>;
  stop(): Promise<void>;
}

interface Stoppable {
  stop(): Promise<void>;
}

export interface SystemOptions {
  /** Options of the catalog service (e.g. a fault put between it and the asset service). */
  catalog?: Omit<CatalogServiceOptions, 'logger'>;
  /** Options of the analysis service (e.g. the analysis engine its workers run). */
  analysis?: Omit<AnalysisServiceOptions, 'logger'>;
  /** false: the test starts (and stops, restarts) the library service itself, with `env`. */
  library?: false;
}

/**
 * For tests whose calls may wait long on a loaded machine (the analysis tests, and fixtures of
 * hundreds of uploads or a large import, which the six services of this one process serve on one
 * event loop): a minute for any service's answer at the gateway, half a minute for the catalog's
 * calls of the asset service (below its attach intents' grace) and for the gateway's lookup of an
 * asset listener, and the clients' connections allowed to stay silent longer than that, as the
 * gateway requires (a shorter idle timeout would drop the connection before the 504); a
 * confirmation waits as long for its upload's verification before it answers that it is under way.
 */
export const PATIENT_CALLS: Readonly<Record<string, string>> = {
  RPC_TIMEOUT_MS: '60000',
  ANALYSIS_RPC_TIMEOUT_MS: '60000',
  CATALOG_ASSET_RPC_TIMEOUT_MS: '30000',
  ASSET_DISCOVERY_TIMEOUT_MS: '30000',
  HTTP_IDLE_TIMEOUT_MS: '90000',
  ASSET_CONFIRM_WAIT_MS: '45000',
};

/**
 * Starts all six services in this process against a fresh database and a NATS prefix of their
 * own; they still talk only over NATS and HTTP, as in production, each as its own database role
 * and NATS user. Tests drive the public HTTP API.
 */
export async function startSystem(overrides: Record<string, string> = {}, options: SystemOptions = {}): Promise<RunningSystem> {
  const database = await createTestDatabase('system');
  const blobDir = mkdtempSync(join(tmpdir(), 'catalog-blobs-'));
  const env: Record<string, string> = {
    ...(await serviceEnvironment(database)),
    NATS_PREFIX: uniqueNatsPrefix('sys'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    CATALOG_HTTP_PORT: '0',
    ASSET_HTTP_PORT: '0',
    ANALYSIS_HTTP_PORT: '0',
    EVENTS_HTTP_PORT: '0',
    LIBRARY_HTTP_PORT: '0',
    ADMIN_TOKEN,
    BLOB_DIR: blobDir,
    BLOB_SIGNING_SECRET: 'system-test-blob-signing-secret-0123456789abcdef',
    DB_POOL_SIZE: '5',
    ...overrides,
  };
  const logger: Logger = testLogger('system');
  const running: Stoppable[] = [];
  try {
    // The gateway first: its address is the public base of the signed upload URLs (PUBLIC_BASE_URL).
    const gateway = await startGateway(readConfig(gatewayConfig, env), { logger });
    running.push(gateway);
    env.PUBLIC_BASE_URL ??= gateway.url;
    const catalog = { runtime: null as Stoppable | null, stop: async () => undefined as void };
    const startCatalog = async () => {
      catalog.runtime ??= await startCatalogService(readConfig(catalogConfig, env), { ...options.catalog, logger });
    };
    catalog.stop = async () => {
      await catalog.runtime?.stop();
      catalog.runtime = null;
    };
    await startCatalog();
    running.push(catalog);
    const asset = await startAssetService(readConfig(assetConfig, env), { logger });
    running.push(asset);
    running.push(await startAnalysisService(readConfig(analysisConfig, env), { ...options.analysis, logger }));
    running.push(await startEventsService(readConfig(eventsConfig, env), { logger }));
    if (options.library !== false) running.push(await startLibraryService(readConfig(libraryConfig, env), { logger }));
    return {
      baseUrl: gateway.url,
      assetPort: asset.http!.port,
      env,
      database,
      stopCatalog: () => catalog.stop(),
      startCatalog,
      async stopServices() {
        for (const service of running.splice(0).reverse()) await service.stop();
      },
      async stop() {
        for (const service of running.splice(0).reverse()) await service.stop();
        await database.drop();
        rmSync(blobDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const service of running.reverse()) await service.stop().catch(() => undefined);
    await database.drop().catch(() => undefined);
    throw error;
  }
}
