import { startService, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { LibraryConfig } from './config.js';
import { rebuildWhenNeeded } from './domain/rebuild.js';
import { trackCursors } from './domain/track-cursor.js';
import { analysisReader } from './integration/analysis-client.js';
import { catalogReader } from './integration/catalog-client.js';
import { followCatalogEvents } from './consumers/catalog-events.js';
import { libraryMigrations } from './migrations/index.js';
import type { LibraryDb } from './persistence/tables.js';
import { libraryOperations } from './rpc/operations.js';

/**
 * Starts the library service: migrations of the `library` schema, the outbox relay (track.*
 * events), the projection of the catalog's events into the tracks, the `listTracks` and `getTrack`
 * operations on NATS, the rebuild of the tracks when the projection is missing or of another
 * version (decision 0104) and the HTTP listener with health checks.
 */
export async function startLibraryService(config: LibraryConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<LibraryDb>> {
  const settings = { config, schema: 'library', migrations: libraryMigrations, outbox: config.outbox, logger: options.logger };
  return startService<LibraryDb, ServiceRuntime<LibraryDb>>({ ...settings, moduleUrl: import.meta.url }, async (runtime) => {
    const { db } = runtime.database;
    const rpc = { nc: runtime.nc, subjects: runtime.subjects, callContext: runtime.callContext, timeoutMs: config.catalogRpcTimeoutMs };
    const catalog = catalogReader(rpc);
    const analyses = analysisReader(rpc);
    // The listing's cursors are signed with a key derived from the secret every service shares (decision 0116).
    await runtime.serve(libraryOperations({ db, cursors: trackCursors(config.callContextSecret) }));
    followCatalogEvents(
      runtime,
      { db, catalog, analyses },
      {
        ...config.catalogEvents,
        concurrency: config.projectionConcurrency,
        lanesPerBatch: config.projectionLanesPerBatch,
      },
    );
    // A new or dropped schema, or a projection of another version: rebuilt from the catalog while answering.
    runtime.onStop(rebuildWhenNeeded({ db, catalog, analyses, logger: runtime.logger }));
    return runtime;
  });
}
