import { startJobRunner, type JobOutcome, type JobRunner, type Logger, type NatsConnection, type Subjects } from '@catalog/platform';
import { jobOfMessage, type JobMessage } from './job-messages.js';

export interface WorkerDeps {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** Runs the job of one message; rejects only when the database or the bus failed. */
  run(message: JobMessage, signal: AbortSignal): Promise<JobOutcome>;
}

export interface WorkerSettings {
  /** Jobs this process runs at once (ANALYSIS_CONCURRENCY); 0 runs none. */
  concurrency: number;
  durable: string;
  ackWaitMs: number;
  /** Messages delivered and not settled at most, across the workers (ANALYSIS_JOBS_MAX_HELD). */
  maxHeld: number;
  /** Wait before a message whose handling failed (database away) is delivered again; grows while it keeps failing. */
  retryMinMs: number;
  retryMaxMs: number;
}

/**
 * Starts the analysis workers of this process on the platform's job runner (decisions 0126,
 * 0150): the `analysis.queued` events of the events stream, followed by one durable consumer that
 * every process shares, run fairly between tenants; a message a worker stops confirming (the
 * process died) goes to another after `ackWaitMs`. `stop()` lets running analyses abort and their
 * messages go back to the queue.
 */
export function startJobWorkers(deps: WorkerDeps, settings: WorkerSettings): JobRunner {
  return startJobRunner({
    nc: deps.nc,
    subjects: deps.subjects,
    logger: deps.logger,
    name: 'analysis workers',
    durable: settings.durable,
    filterSubject: deps.subjects.events('catalog', 'analysis.queued'),
    ackWaitMs: settings.ackWaitMs,
    concurrency: settings.concurrency,
    maxHeld: settings.maxHeld,
    retry: { minMs: settings.retryMinMs, maxMs: settings.retryMaxMs },
    jobOf: jobOfMessage,
    run: deps.run,
  });
}
