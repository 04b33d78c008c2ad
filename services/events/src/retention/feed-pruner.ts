import {
  processMetrics,
  runAsLeader,
  sleep,
  withoutTenant,
  type Counter,
  type Kysely,
  type Leadership,
  type Logger,
  type MetricsRegistry,
} from '@catalog/platform';
import type { FeedPrunerConfig } from '../config.js';
import { deleteExpiredFeedRows } from '../persistence/feed-retention.js';
import type { EventsDb } from '../persistence/tables.js';

export interface FeedPrunerSettings {
  db: Kysely<EventsDb>;
  /** For the pruner's lease connection. */
  connectionString: string;
  role: string;
  logger: Logger;
  config: FeedPrunerConfig;
  metrics?: MetricsRegistry;
}

export interface FeedPruner {
  /** Stops pruning; waits for the batch being deleted, never starts another. */
  stop(): Promise<void>;
}

/** What one run removed, and in how many statements. */
export interface PruneRun {
  removed: number;
  batches: number;
}

/**
 * Keeps `events.feed` at about `retentionDays` of events: the replica holding the pruner's lease
 * deletes rows received before then every `intervalMs`, `batchSize` rows a transaction, until
 * none is left. Short transactions hold no snapshot back for long and lock few rows at a time; the
 * feed writer and readers go on meanwhile. Pages read by `(tx_id, id)` after a cursor, so a
 * cursor whose rows are gone still reads what follows it.
 */
export function startFeedPruner(settings: FeedPrunerSettings): FeedPruner {
  const log = settings.logger.child({ component: 'feed-pruner' });
  const pruned = feedPrunedRows(settings.metrics ?? processMetrics);
  const leader = runAsLeader(
    {
      connectionString: settings.connectionString,
      role: settings.role,
      lockName: 'events-feed-pruner',
      logger: log,
      retryMs: settings.config.intervalMs,
    },
    async ({ signal }: Leadership) => {
      while (!signal.aborted) {
        try {
          // Counted batch by batch, so a run that fails half-way still counts what it removed.
          const run = await pruneFeed(settings.db, settings.config, { signal, onBatch: (removed) => pruned.inc({}, removed) });
          if (run.removed > 0) log.info({ ...run, retentionDays: settings.config.retentionDays }, 'pruned the feed');
        } catch (error) {
          log.warn({ err: error }, 'pruning the feed failed; trying again next interval');
        }
        await sleep(settings.config.intervalMs, signal);
      }
    },
  );
  return { stop: () => leader.stop() };
}

/** The counter of feed rows the pruner deleted, in `registry`. */
export function feedPrunedRows(registry: MetricsRegistry): Counter {
  return registry.counter('catalog_feed_pruned_rows_total', 'Feed rows deleted past the feed retention (FEED_RETENTION_DAYS)');
}

/** Deletes expired feed rows batch by batch until a batch is not full or `signal` aborts. */
export async function pruneFeed(
  db: Kysely<EventsDb>,
  config: Pick<FeedPrunerConfig, 'retentionDays' | 'batchSize'>,
  options: { signal?: AbortSignal; onBatch?: (removed: number) => void } = {},
): Promise<PruneRun> {
  const run: PruneRun = { removed: 0, batches: 0 };
  while (!options.signal?.aborted) {
    const removed = await withoutTenant(() => deleteExpiredFeedRows(db, config.retentionDays, config.batchSize));
    options.onBatch?.(removed);
    run.removed += removed;
    run.batches += 1;
    if (removed < config.batchSize) break;
  }
  return run;
}
