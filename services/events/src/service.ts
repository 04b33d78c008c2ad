import { startService, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { EventsConfig } from './config.js';
import { feedCursors } from './domain/feed-cursor.js';
import { startFeedWriter } from './consumers/feed-writer.js';
import { eventsMigrations } from './migrations/index.js';
import { startFeedPruner } from './retention/feed-pruner.js';
import type { EventsDb } from './persistence/tables.js';
import { listEventsOperation, listLibraryEventsOperation } from './rpc/operations.js';

/**
 * Starts the events service: migrations of the `events` schema, the feed writer (events stream →
 * `events.feed`, one active replica at a time), the feed's pruner (one replica at a time too) and
 * the `listEvents` operation on NATS.
 */
export async function startEventsService(config: EventsConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<EventsDb>> {
  const settings = { config, schema: 'events', migrations: eventsMigrations, logger: options.logger };
  return startService<EventsDb, ServiceRuntime<EventsDb>>({ ...settings, moduleUrl: import.meta.url }, async (runtime) => {
    const { db } = runtime.database;
    const writer = startFeedWriter({
      db,
      nc: runtime.nc,
      subjects: runtime.subjects,
      logger: runtime.logger,
      connectionString: config.databaseUrl,
      role: 'events_app',
      config: config.feedWriter,
    });
    runtime.onStop(() => writer.stop());
    const pruner = startFeedPruner({
      db,
      connectionString: config.databaseUrl,
      role: 'events_app',
      logger: runtime.logger,
      config: config.feedPruner,
    });
    runtime.onStop(() => pruner.stop());
    const stopping = new AbortController();
    const waits = { pollMs: config.feedWaitPollMs, signal: stopping.signal };
    await runtime.serve([
      listEventsOperation(db, feedCursors(config.feedCursorSecret), waits),
      listLibraryEventsOperation(db, feedCursors(config.feedCursorSecret, 'library'), waits),
    ]);
    // Registered after serve, so it runs before the RPC server waits for its calls: held long polls answer at once.
    runtime.onStop(async () => stopping.abort());
    return runtime;
  });
}
