import { withoutTenant, type Kysely, type Logger, type NatsConnection } from '@catalog/platform';
import { findUndispatchedJobs, markDispatched, type UndispatchedJob } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { publishJob, type JobQueueNames } from './job-queue.js';

export interface DispatchDeps {
  db: Kysely<AnalysisDb>;
  nc: NatsConnection;
  names: JobQueueNames;
  logger: Logger;
}

/**
 * Puts jobs on the work queue after their rows committed, then records it. A crash between the
 * two publishes the job again (the stream's duplicate window, or the job's row, makes that
 * harmless); a failure leaves the job to the dispatcher's next pass. Never throws.
 */
export async function dispatchJobs(deps: DispatchDeps, jobs: readonly UndispatchedJob[]): Promise<number> {
  const published: string[] = [];
  for (const job of jobs) {
    try {
      await publishJob(deps.nc, deps.names, { jobId: job.id, tenantId: job.tenant_id, assetId: job.asset_id, type: job.type });
      published.push(job.id);
    } catch (error) {
      deps.logger.warn({ err: error, jobId: job.id }, 'publishing an analysis job failed; the dispatcher will try again');
      break;
    }
  }
  try {
    await withoutTenant(() => markDispatched(deps.db, published));
  } catch (error) {
    deps.logger.warn({ err: error }, 'recording dispatched analysis jobs failed; they may be published again');
  }
  return published.length;
}

export interface DispatcherSettings {
  /** How old a job without a message must be before the dispatcher publishes it (the API publishes its own first). */
  graceMs: number;
  /** A QUEUED job published this long ago is published again (its message was lost with the stream). */
  redispatchAfterMs: number;
  batchSize: number;
}

/** One pass of the dispatcher: jobs of every tenant that are QUEUED with no message on the queue. */
export async function dispatchPending(deps: DispatchDeps, settings: DispatcherSettings): Promise<number> {
  const jobs = await withoutTenant(() => findUndispatchedJobs(deps.db, { ...settings, limit: settings.batchSize }));
  return jobs.length === 0 ? 0 : dispatchJobs(deps, jobs);
}
