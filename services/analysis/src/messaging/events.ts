import { outboxFor, registeredEvent, type Transaction } from '@catalog/platform';
import type { JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { creditsHeld } from '../domain/job-view.js';

export type AnalysisEventType = 'analysis.queued' | 'analysis.started' | 'analysis.succeeded' | 'analysis.failed';

/**
 * Records the event of a job's transition in the outbox of the transaction that made it (rule 10 of
 * part 6): resource the job, dmrn the entity's (null for a standalone file), data the job's facts
 * after the transition. Every event of a job carries the source system of the request that created
 * it (automatic analyses: the write that brought the file online).
 */
export async function recordJobEvent(trx: Transaction<AnalysisDb>, type: AnalysisEventType, job: JobRow): Promise<void> {
  const data = {
    jobId: job.id,
    type: job.type,
    assetId: job.asset_id,
    entityId: job.entity_id,
    versionId: job.version_id,
    status: job.status,
    credits: creditsHeld(job),
    ...(type === 'analysis.failed' ? { errorCode: job.error_code ?? 'unknown' } : {}),
  };
  const outbox = outboxFor(trx, 'analysis', { tenantId: job.tenant_id, sourceSystem: job.source_system });
  await outbox.record(registeredEvent(type, { resourceId: job.id, dmrn: job.dmrn, data }));
}
