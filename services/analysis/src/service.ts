import {
  consumeEvents,
  createUrlSigner,
  randomSigningSecret,
  runPeriodically,
  startService,
  type Logger,
  type ServiceRuntime,
} from '@catalog/platform';
import type { AnalysisConfig } from './config.js';
import { analysesRequestedHandler } from './consumers/analyses-requested.js';
import type { AnalysisDatabase } from './domain/database.js';
import { cuePointMarkerWriter, retryPendingMarkers, type MarkerWriterDeps } from './domain/markers.js';
import { resultLinks } from './domain/result-links.js';
import { runJob, type RunJobDeps } from './domain/run-job.js';
import { mountResultRoutes } from './http/result-listener.js';
import { catalogMarkers } from './integration/catalog-markers.js';
import { fileFetcher } from './integration/files.js';
import { sourceResolver } from './integration/sources.js';
import { analysisMigrations } from './migrations/index.js';
import type { AnalysisDb } from './persistence/tables.js';
import { analysisOperations } from './rpc/operations.js';
import { startJobWorkers } from './workers/worker.js';

export interface AnalysisServiceOptions {
  logger?: Logger;
  /** The analysis engine the workers run (default `analyzeFile`); tests put one in that answers what they need. */
  analyze?: RunJobDeps['analyze'];
}

type Rpc = Parameters<typeof sourceResolver>[0];

/** The retries of cue points as markers the catalog has not answered for, and the consumer of `version.analyses_requested` (automatic analyses). */
function startMarkersAndAutomaticAnalyses(runtime: ServiceRuntime<AnalysisDb>, config: AnalysisConfig, markers: MarkerWriterDeps): void {
  runPeriodically(runtime, {
    name: 'analysis cue point markers',
    intervalMs: config.markers.retryIntervalMs,
    run: () => retryPendingMarkers(markers),
  });
  consumeEvents(runtime, {
    ...config.analysesRequested,
    filterSubject: runtime.subjects.events('catalog', 'version.analyses_requested'),
    handle: analysesRequestedHandler(runtime.database.db),
  });
}

/** `ANALYSIS_CONCURRENCY` workers on the shared durable consumer of the jobs' `analysis.queued` events (decisions 0126, 0150). */
function startWorkers(
  runtime: ServiceRuntime<AnalysisDb>,
  config: AnalysisConfig,
  rpc: Rpc,
  extra: { markers: MarkerWriterDeps; analyze: RunJobDeps['analyze'] },
): void {
  const db: AnalysisDatabase = runtime.database.db;
  const { workers } = config;
  const deps: RunJobDeps = {
    db,
    files: fileFetcher(rpc, { workDir: workers.workDir, timeoutMs: workers.downloadTimeoutMs }),
    logger: runtime.logger,
    afterSuccess: cuePointMarkerWriter(extra.markers),
    analyze: extra.analyze,
    settings: workers,
  };
  const jobWorkers = startJobWorkers(
    { nc: runtime.nc, subjects: runtime.subjects, logger: runtime.logger, run: (message, signal) => runJob(deps, message, signal) },
    {
      concurrency: workers.concurrency,
      durable: workers.consumer,
      ackWaitMs: workers.ackWaitMs,
      maxHeld: workers.maxHeld,
      retryMinMs: workers.retryMinMs,
      retryMaxMs: workers.retryMaxMs,
    },
  );
  runtime.onStop(() => jobWorkers.stop());
}

/**
 * Starts the analysis service: migrations of the `analysis` schema, the outbox relay of its events
 * (a job's `analysis.queued` is its message on the work queue), the operations of jobs and credits
 * on NATS, the workers, and the HTTP listener with health checks and the results too large for a
 * bus reply (decision 0113). `stop()` of the returned runtime stops all of it.
 */
export async function startAnalysisService(
  config: AnalysisConfig,
  options: AnalysisServiceOptions = {},
): Promise<ServiceRuntime<AnalysisDb>> {
  const settings = { config, schema: 'analysis', migrations: analysisMigrations, outbox: config.outbox, logger: options.logger };
  return startService<AnalysisDb, ServiceRuntime<AnalysisDb>>({ ...settings, moduleUrl: import.meta.url }, async (runtime) => {
    const { db } = runtime.database;
    const rpc = { nc: runtime.nc, subjects: runtime.subjects, callContext: runtime.callContext, timeoutMs: config.rpcTimeoutMs };
    let listenerUrl = '';
    const links = resultLinks(createUrlSigner(config.resultLinkSecret ?? randomSigningSecret()), () => listenerUrl);
    const server = await runtime.listen((app) => mountResultRoutes(app, { db, links }));
    listenerUrl = config.internalUrl ?? server.url;
    await runtime.serve(analysisOperations({ db, links, sources: sourceResolver(rpc), maxQueuedPerTenant: config.maxQueuedPerTenant }));
    const markers: MarkerWriterDeps = {
      db,
      catalog: catalogMarkers(rpc),
      logger: runtime.logger,
      settings: { ...config.markers, batchSize: 50 },
    };
    startMarkersAndAutomaticAnalyses(runtime, config, markers);
    startWorkers(runtime, config, rpc, { markers, analyze: options.analyze });
    return runtime;
  });
}
