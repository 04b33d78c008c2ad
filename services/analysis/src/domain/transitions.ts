import { inTenantTransaction, type Kysely } from '@catalog/platform';
import { recordJobEvent } from '../persistence/job-events.js';
import { claimSiblings, startJob } from '../persistence/job-batches.js';
import { failJob, recordAttemptError, succeedJob, type JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { endReservation } from './credits.js';
import { resultSummary } from './summary.js';

/**
 * The transitions of a job after its creation (decisions 0087, 0126), each one transaction with its
 * credits and its event. The SQL of each is guarded (see persistence/), so whoever tries, a job
 * starts from QUEUED (or RUNNING, a worker taking over), and ends once: settled once on success,
 * refunded once on failure.
 */

/**
 * What a worker got for the message it holds: the batch the message carries (its job first, then
 * the jobs taken along: one decode), or nothing to run (the job ended, or another job's message
 * carries it).
 */
export type Begun = { batch: JobRow[] } | { ended: true } | { carriedBy: string };

/**
 * A worker takes the job of its message: RUNNING, one more attempt; with it the jobs its batch
 * carried already (a take-over) and the other QUEUED jobs of the same file, one per type, unless
 * the job is past `maxAttempts` (the caller fails it with its batch). analysis.started is recorded
 * for each job the first time it starts.
 */
export async function beginJob(db: Kysely<AnalysisDb>, tenantId: string, jobId: string, maxAttempts: number): Promise<Begun> {
  return inTenantTransaction(db, tenantId, async (trx) => {
    const started = await startJob(trx, tenantId, jobId);
    if (!('job' in started)) return started;
    if (started.was === 'QUEUED') await recordJobEvent(trx, 'analysis.started', started.job);
    const batch = [started.job, ...started.carried];
    if (started.job.attempts > maxAttempts) return { batch };
    const siblings = await claimSiblings(
      trx,
      started.job,
      batch.map((job) => job.type),
    );
    for (const sibling of siblings) await recordJobEvent(trx, 'analysis.started', sibling);
    return { batch: [...batch, ...siblings] };
  });
}

/** The job succeeded: its result and its summary, its cost settled, analysis.succeeded. False when it had ended already. */
export async function completeJob(db: Kysely<AnalysisDb>, job: JobRow, result: unknown): Promise<boolean> {
  const stored = { json: JSON.stringify(result), summary: resultSummary(job.type, result) };
  return inTenantTransaction(db, job.tenant_id, async (trx) => {
    const done = await succeedJob(trx, job.tenant_id, job.id, stored);
    if (!done) return false;
    await endReservation(trx, job.tenant_id, job.id, done.cost, 'settle');
    await recordJobEvent(trx, 'analysis.succeeded', done);
    return true;
  });
}

/** The job failed for good: its error, its cost refunded, analysis.failed. False when it had ended already. */
export async function abandonJob(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  jobId: string,
  error: { code: string; message: string },
): Promise<boolean> {
  return inTenantTransaction(db, tenantId, async (trx) => {
    const failed = await failJob(trx, tenantId, jobId, error);
    if (!failed) return false;
    await endReservation(trx, tenantId, jobId, failed.cost, 'refund');
    await recordJobEvent(trx, 'analysis.failed', failed);
    return true;
  });
}

/** Notes why an attempt failed, for the error of the job should its last attempt fail too. */
export async function noteAttemptError(db: Kysely<AnalysisDb>, tenantId: string, jobId: string, message: string): Promise<void> {
  await inTenantTransaction(db, tenantId, (trx) => recordAttemptError(trx, tenantId, jobId, message));
}
