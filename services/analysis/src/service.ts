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
import { resultLinks } from './domain/result-links.js';
import { runJob, type RunJobDeps } from './domain/run-job.js';
import { mountResultRoutes } from './http/result-listener.js';
import { fileFetcher } from './integration/files.js';
import { cuePointMarkerWriter, retryPendingMarkers, type MarkerWriterDeps } from './integration/markers.js';
import { sourceResolver } from './integration/sources.js';
import { queueAutomaticAnalyses } from './messaging/automatic-analyses.js';
import { analysisMigrations } from './migrations/index.js';
import type { AnalysisDb } from './persistence/tables.js';
import { analysisOperations } from './rpc/operations.js';
import { dispatchJobs, dispatchPending, type DispatchDeps } from './workers/dispatcher.js';
import { ensureJobStream, jobQueueNames } from './workers/job-queue.js';
import { startJobWorkers } from './workers/worker.js';

export interface AnalysisServiceOptions {
  logger?: Logger;
  /** The analysis engine the workers run (default `analyzeFile`); tests put one in that answers what they need. */
  analyze?: RunJobDeps['analyze'];
}

/** How long after its commit a job without a message is left to the API that created it. */
const DISPATCH_GRACE_MS = 1_000;
/** A QUEUED job whose message was published this long ago is published again (the stream lost it). */
const REDISPATCH_AFTER_MS = 30 * 60_000;

type Rpc = Parameters<typeof sourceResolver>[0];

/**
 * The dispatcher's periodic catch-up, the retries of cue points as markers the catalog has not
 * answered for, and the consumer of `version.analyses_requested` (automatic analyses).
 */
function startDispatchAndAutomaticAnalyses(
  runtime: ServiceRuntime<AnalysisDb>,
  config: AnalysisConfig,
  dispatch: DispatchDeps,
  markers: MarkerWriterDeps,
): void {
  const { db } = runtime.database;
  runPeriodically(runtime, {
    name: 'analysis job dispatch',
    intervalMs: config.dispatchIntervalMs,
    run: () => dispatchPending(dispatch, { graceMs: DISPATCH_GRACE_MS, redispatchAfterMs: REDISPATCH_AFTER_MS, batchSize: 200 }),
  });
  runPeriodically(runtime, {
    name: 'analysis cue point markers',
    intervalMs: config.markers.retryIntervalMs,
    run: () => retryPendingMarkers(markers),
  });
  consumeEvents(runtime, {
    ...config.analysesRequested,
    filterSubject: runtime.subjects.events('catalog', 'version.analyses_requested'),
    handle: (event) => queueAutomaticAnalyses({ db, dispatch: (jobs) => dispatchJobs(dispatch, jobs) }, event),
  });
}

/** `ANALYSIS_CONCURRENCY` workers on the shared durable consumer of the work queue. */
function startWorkers(
  runtime: ServiceRuntime<AnalysisDb>,
  config: AnalysisConfig,
  rpc: Rpc,
  names: ReturnType<typeof jobQueueNames>,
  extra: { markers: MarkerWriterDeps; analyze: RunJobDeps['analyze'] },
): void {
  const { db } = runtime.database;
  const { workers } = config;
  const jobWorkers = startJobWorkers(
    {
      nc: runtime.nc,
      names,
      logger: runtime.logger,
      run: (message, signal) =>
        runJob(
          {
            db,
            files: fileFetcher(rpc, { workDir: workers.workDir, timeoutMs: workers.downloadTimeoutMs }),
            logger: runtime.logger,
            afterSuccess: cuePointMarkerWriter(extra.markers),
            analyze: extra.analyze,
            settings: { ...workers, leaseMs: workers.ackWaitMs },
          },
          message,
          signal,
        ),
    },
    { concurrency: workers.concurrency, durable: workers.consumer, ackWaitMs: workers.ackWaitMs, retryMinMs: workers.retryMinMs },
  );
  runtime.onStop(() => jobWorkers.stop());
}

/**
 * Starts the analysis service: migrations of the `analysis` schema, the outbox relay of its events,
 * the work queue and its dispatcher, the operations of jobs and credits on NATS, and the HTTP
 * listener with health checks and the results too large for a bus reply (decision 0113).
 * `stop()` of the returned runtime stops all of it.
 */
export async function startAnalysisService(
  config: AnalysisConfig,
  options: AnalysisServiceOptions = {},
): Promise<ServiceRuntime<AnalysisDb>> {
  const settings = { config, schema: 'analysis', migrations: analysisMigrations, outbox: config.outbox, logger: options.logger };
  return startService<AnalysisDb, ServiceRuntime<AnalysisDb>>({ ...settings, moduleUrl: import.meta.url }, async (runtime) => {
    const { db } = runtime.database;
    const rpc = { nc: runtime.nc, subjects: runtime.subjects, callContext: runtime.callContext, timeoutMs: config.rpcTimeoutMs };
    const names = jobQueueNames(runtime.subjects.prefix);
    await ensureJobStream(runtime.nc, names);
    const dispatch: DispatchDeps = { db, nc: runtime.nc, names, logger: runtime.logger };
    let listenerUrl = '';
    const links = resultLinks(createUrlSigner(config.resultLinkSecret ?? randomSigningSecret()), () => listenerUrl);
    const server = await runtime.listen((app) => mountResultRoutes(app, { db, links }));
    listenerUrl = config.internalUrl ?? server.url;
    await runtime.serve(
      analysisOperations({
        db,
        links,
        sources: sourceResolver(rpc),
        dispatch: (jobs) => dispatchJobs(dispatch, jobs),
      }),
    );
    const markers: MarkerWriterDeps = { db, rpc, logger: runtime.logger, settings: { ...config.markers, batchSize: 50 } };
    startDispatchAndAutomaticAnalyses(runtime, config, dispatch, markers);
    startWorkers(runtime, config, rpc, names, { markers, analyze: options.analyze });
    return runtime;
  });
}
