import { inTenantTransaction, type Kysely } from '@catalog/platform';
import { recordJobEvent } from '../messaging/events.js';
import { failJob, recordAttemptError, startJob, succeedJob, type JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { endReservation } from './credits.js';

/**
 * The transitions of a job after its creation (decision 0087), each one transaction with its
 * credits and its event. The SQL of each is guarded (see persistence/jobs.ts), so whoever tries,
 * a job starts from QUEUED (or RUNNING, a worker taking over), and ends once: settled once on
 * success, refunded once on failure.
 */

/** A worker takes the job: RUNNING, one more attempt; analysis.started only the first time. Undefined once it has ended. */
export async function beginJob(db: Kysely<AnalysisDb>, tenantId: string, jobId: string): Promise<JobRow | undefined> {
  return inTenantTransaction(db, tenantId, async (trx) => {
    const started = await startJob(trx, tenantId, jobId);
    if (!started) return undefined;
    if (started.was === 'QUEUED') await recordJobEvent(trx, 'analysis.started', started.job);
    return started.job;
  });
}

/** The job succeeded: its result, its cost settled, analysis.succeeded. False when it had ended already. */
export async function completeJob(db: Kysely<AnalysisDb>, job: JobRow, result: unknown): Promise<boolean> {
  return inTenantTransaction(db, job.tenant_id, async (trx) => {
    const done = await succeedJob(trx, job.tenant_id, job.id, result);
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
