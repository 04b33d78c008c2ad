import { startService, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { LibraryConfig } from './config.js';
import { rebuildOneTenant, rebuildWhenNeeded } from './domain/rebuild.js';
import { refreshesInFlight } from './domain/refreshes-in-flight.js';
import { subscribers } from './domain/subscribers.js';
import { trackCursors } from './domain/track-cursor.js';
import { analysisReader } from './integration/analysis-client.js';
import { catalogReader } from './integration/catalog-client.js';
import { gatewayReader } from './integration/gateway-client.js';
import { followOrganizationNotices } from './consumers/organization-notices.js';
import { followCatalogEvents, followCatalogEventsExpress } from './consumers/catalog-events.js';
import { busyTenants } from './consumers/express-lane.js';
import { libraryMigrations } from './migrations/index.js';
import type { LibraryDb } from './persistence/tables.js';
import { libraryOperations } from './rpc/operations.js';

/** The window over which a tenant's events are counted to tell whether it is busy (LIBRARY_EXPRESS_BUSY_EVENTS). */
const BUSY_WINDOW_MS = 10_000;
/**
 * Starts the library service: migrations of the `library` schema, the outbox relay (track.*
 * events), the projection of the catalog's events into the tracks of the tenants that subscribe to
 * the library (the gateway's notices of plan changes followed, decision 0149), the `listTracks` and `getTrack`
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
    const projection = { db, catalog, analyses, logger: runtime.logger };
    const tenants = subscribers({
      db,
      gateway: gatewayReader(rpc),
      logger: runtime.logger,
      catchUp: async (tenantId) => {
        runtime.logger.info({ tenantId }, 'a tenant subscribed to the library: rebuilding its tracks');
        runtime.logger.info({ tenantId, ...(await rebuildOneTenant(projection, tenantId)) }, 'tracks of a new subscriber rebuilt');
      },
    });
    runtime.onStop(followOrganizationNotices(runtime, tenants));
    // The listing's cursors are signed with a key derived from the secret every service shares (decision 0116).
    await runtime.serve(libraryOperations({ db, cursors: trackCursors(config.callContextSecret) }));
    const lanes = { concurrency: config.projectionConcurrency, lanesPerBatch: config.projectionLanesPerBatch };
    // Both consumers below get a quiet tenant's events: one waits for the other's refresh (decision 0176).
    const projectionDeps = { db, catalog, analyses, subscribers: tenants, inFlight: refreshesInFlight() };
    followCatalogEvents(runtime, projectionDeps, { ...config.catalogEvents, ...lanes });
    const { busyEvents, ...express } = config.expressEvents;
    const busy = busyTenants({ windowMs: BUSY_WINDOW_MS, maxEvents: busyEvents });
    followCatalogEventsExpress(runtime, projectionDeps, {
      ...express,
      ...lanes,
      slotsPerTenant: config.catalogEvents.slotsPerTenant,
      busy,
    });
    // A new or dropped schema, or a projection of another version: rebuilt from the catalog while answering.
    runtime.onStop(rebuildWhenNeeded({ ...projection, subscribed: tenants.active }));
    return runtime;
  });
}
