import { sql, type Kysely } from 'kysely';
import type { AnalysisJobStatus, AnalysisType } from '@catalog/contracts';
import type { JobRow } from './jobs.js';
import type { AnalysisDb } from './tables.js';

/**
 * How a worker takes jobs (decision 0126). The message it holds (a job's `analysis.queued` event)
 * is what keeps a job with its worker: JetStream redelivers it once the worker stops confirming
 * it, so a RUNNING job whose own message comes again is taken over. A worker also takes along the
 * other QUEUED jobs of the same file (one per type it does not run yet), so that one decode serves
 * them all: they name the job they ride with (`batch_lead_id`), whose message carries them from
 * then on; their own messages find them carried and are acked.
 */

/** A job a worker starts or takes over: RUNNING, one more attempt. */
const started = (batchLeadId: string | null) => ({
  status: 'RUNNING' as const,
  started_at: sql<Date>`coalesce(started_at, clock_timestamp())`,
  attempts: sql<number>`attempts + 1`,
  batch_lead_id: batchLeadId,
  updated_at: sql<Date>`clock_timestamp()`,
});

/**
 * What a message's job is: started (with the jobs its batch carried already, when a worker takes
 * over), ended, or carried by another job's message.
 */
export type StartOutcome = { job: JobRow; was: AnalysisJobStatus; carried: JobRow[] } | { ended: true } | { carriedBy: string };

/**
 * Starts the job a worker holds the message of: from QUEUED, or from RUNNING (its message came
 * again: the worker that ran it stopped), taking the jobs of its batch over with it. Counts an
 * attempt at each. A job that rides in another job's batch is left to that job's message.
 */
export async function startJob(db: Kysely<AnalysisDb>, tenantId: string, id: string): Promise<StartOutcome> {
  const current = await db
    .selectFrom('jobs')
    .select(['status', 'batch_lead_id'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!current || (current.status !== 'QUEUED' && current.status !== 'RUNNING')) return { ended: true };
  if (current.status === 'RUNNING' && current.batch_lead_id !== null) return { carriedBy: current.batch_lead_id };
  const job = await db
    .updateTable('jobs')
    .set(started(null))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (current.status === 'QUEUED') return { job, was: 'QUEUED', carried: [] };
  const carried = await db
    .updateTable('jobs')
    .set({ attempts: sql<number>`attempts + 1`, updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('batch_lead_id', '=', id)
    .where('status', '=', 'RUNNING')
    .returningAll()
    .execute();
  return { job, was: 'RUNNING', carried };
}

/** Takes along the QUEUED jobs of the lead's file, one per type the batch has not (the oldest of each). */
export function claimSiblings(
  db: Kysely<AnalysisDb>,
  lead: Pick<JobRow, 'id' | 'tenant_id' | 'asset_id'>,
  typesTaken: readonly AnalysisType[],
): Promise<JobRow[]> {
  const candidates = db
    .selectFrom('jobs')
    .select('id')
    .distinctOn('type')
    .where('tenant_id', '=', lead.tenant_id)
    .where('asset_id', '=', lead.asset_id)
    .where('status', '=', 'QUEUED')
    .where('type', 'not in', [...typesTaken])
    .orderBy('type')
    .orderBy('id');
  return db
    .updateTable('jobs')
    .set(started(lead.id))
    .where('tenant_id', '=', lead.tenant_id)
    .where('status', '=', 'QUEUED')
    .where('id', 'in', candidates)
    .returningAll()
    .execute();
}
