import type { EventData, EventTypeName } from '@catalog/contracts';
import { outboxFor, type Transaction } from '@catalog/platform';
import type { JobRow } from './jobs.js';
import type { AnalysisDb } from './tables.js';

/** Credits a job holds: its cost while reserved (QUEUED, RUNNING) and once settled (SUCCEEDED); none once refunded. */
export function creditsHeld(job: Pick<JobRow, 'status' | 'cost'>): number {
  return job.status === 'FAILED' ? 0 : job.cost;
}

export type AnalysisEventType = Extract<EventTypeName, `analysis.${string}`>;

/**
 * Records the event of a job's transition in the outbox of the transaction that made it (rule 10 of
 * part 6): resource the job, dmrn the entity's (null for a standalone file), data the job's facts
 * after the transition. Every event of a job carries the source system of the request that created
 * it (automatic analyses: the write that brought the file online). A job's `analysis.queued` is
 * also its message on the work queue (decision 0126).
 */
export async function recordJobEvent(trx: Transaction<AnalysisDb>, type: AnalysisEventType, job: JobRow): Promise<void> {
  const facts: EventData<'analysis.queued'> = {
    jobId: job.id,
    type: job.type,
    assetId: job.asset_id,
    entityId: job.entity_id,
    versionId: job.version_id,
    status: job.status,
    credits: creditsHeld(job),
  };
  const outbox = outboxFor(trx, 'analysis', { tenantId: job.tenant_id, sourceSystem: job.source_system });
  const about = { resourceId: job.id, dmrn: job.dmrn };
  await outbox.record(
    type === 'analysis.failed'
      ? { type, ...about, data: { ...facts, errorCode: job.error_code ?? 'unknown' } }
      : { type, ...about, data: facts },
  );
}
