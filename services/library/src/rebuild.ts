import { createLogger, readConfig, sleep, startServiceRuntime, packageVersion } from '@catalog/platform';
import { libraryConfig } from './config.js';
import { rebuildLibrary, rebuildOneTenant } from './domain/rebuild.js';
import { subscribers } from './domain/subscribers.js';
import { analysisReader } from './integration/analysis-client.js';
import { catalogReader } from './integration/catalog-client.js';
import { gatewayReader } from './integration/gateway-client.js';
import { libraryMigrations } from './migrations/index.js';
import { withRebuildLock } from './persistence/projection.js';
import type { LibraryDb } from './persistence/tables.js';

/**
 * `npm run library:rebuild`: refreshes every track from the catalog now (decision 0104), with the
 * library service's configuration, beside running replicas (which keep answering and applying
 * live events), then exits; while a replica is rebuilding, it waits for that rebuild to end.
 */
const logger = createLogger({ service: 'library-rebuild' });
try {
  const config = readConfig(libraryConfig);
  const runtime = await startServiceRuntime<LibraryDb>({
    config,
    schema: 'library',
    migrations: libraryMigrations,
    version: packageVersion(import.meta.url),
    logger,
  });
  try {
    const rpc = {
      nc: runtime.nc,
      subjects: runtime.subjects,
      callContext: runtime.callContext,
      timeoutMs: config.catalogRpcTimeoutMs,
    };
    const projection = { db: runtime.database.db, catalog: catalogReader(rpc), analyses: analysisReader(rpc), logger };
    // Only the tenants that subscribe to the library (decision 0149); one that has just subscribed is rebuilt by that look.
    const tenants = subscribers({
      db: runtime.database.db,
      gateway: gatewayReader(rpc),
      logger,
      catchUp: async (tenantId) => void (await rebuildOneTenant(projection, tenantId)),
    });
    // One rebuild at a time (decision 0104): waits while a replica's runs.
    for (;;) {
      const locked = await withRebuildLock(runtime.database.db, () => rebuildLibrary({ ...projection, subscribed: tenants.active }));
      if (locked.ran) {
        logger.info(locked.value, 'library rebuilt');
        break;
      }
      logger.info('another rebuild of the library is running; waiting');
      await sleep(2_000);
    }
  } finally {
    await runtime.stop();
  }
} catch (error) {
  logger.fatal({ err: error }, 'rebuilding the library failed');
  process.exitCode = 1;
}
