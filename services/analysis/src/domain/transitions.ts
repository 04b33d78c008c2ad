import { inTenantScope, inTenantTransaction, type Kysely } from '@catalog/platform';
import { recordJobEvent } from '../messaging/events.js';
import { claimSiblings, setLeases } from '../persistence/job-leases.js';
import { resultSummary } from './summary.js';
import { failJob, recordAttemptError, startJob, succeedJob, type JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { endReservation } from './credits.js';

/**
 * The transitions of a job after its creation (decision 0087), each one transaction with its
 * credits and its event. The SQL of each is guarded (see persistence/jobs.ts), so whoever tries,
 * a job starts from QUEUED (or RUNNING, a worker taking over), and ends once: settled once on
 * success, refunded once on failure.
 */

/** What a worker got: the job and the other QUEUED jobs of its file it took along (one decode), or why none. */
export type Begun = { batch: JobRow[] } | { ended: true } | { busyForMs: number };

/**
 * A worker takes the job: RUNNING, one more attempt, leased for `leaseMs`; with it the other
 * QUEUED jobs of the same file, one per type (decision 0087), unless the job is past
 * `maxAttempts`. analysis.started is recorded for each job the first time it starts.
 */
export async function beginJob(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  jobId: string,
  settings: { leaseMs: number; maxAttempts: number },
): Promise<Begun> {
  const { leaseMs, maxAttempts } = settings;
  return inTenantTransaction(db, tenantId, async (trx) => {
    const started = await startJob(trx, tenantId, jobId, leaseMs);
    if (!('job' in started)) return started;
    if (started.was === 'QUEUED') await recordJobEvent(trx, 'analysis.started', started.job);
    // A job past its attempts is failed by the caller: nothing is taken along.
    if (started.job.attempts > maxAttempts) return { batch: [started.job] };
    const siblings = await claimSiblings(trx, started.job, leaseMs);
    for (const sibling of siblings) await recordJobEvent(trx, 'analysis.started', sibling);
    return { batch: [started.job, ...siblings] };
  });
}

/** Renews the leases of a batch, or gives them up (`leaseMs` 0) so that another worker may take the jobs at once. */
export async function leaseBatch(db: Kysely<AnalysisDb>, batch: readonly JobRow[], leaseMs: number): Promise<void> {
  const [first] = batch;
  if (!first) return;
  await inTenantScope(db, first.tenant_id, (scoped) =>
    setLeases(
      scoped,
      first.tenant_id,
      batch.map((job) => job.id),
      leaseMs,
    ),
  );
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
