import { eventType, schemaValidator } from '@catalog/contracts';
import { outboxFor, type Transaction } from '@catalog/platform';
import type { JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { creditsHeld } from '../domain/job-view.js';

export type AnalysisEventType = 'analysis.queued' | 'analysis.started' | 'analysis.succeeded' | 'analysis.failed';

const validators = new Map<string, (value: unknown) => unknown[]>();

function checkData(type: AnalysisEventType, data: unknown): void {
  let validate = validators.get(type);
  if (!validate) {
    validate = schemaValidator(eventType(type).data);
    validators.set(type, validate);
  }
  const issues = validate(data);
  // A programming error: the event would break the published contract.
  if (issues.length > 0) throw new Error(`event ${type} does not match its registered schema: ${JSON.stringify(issues)}`);
}

/**
 * Records the event of a job's transition in the outbox of the transaction that made it (rule 10 of
 * part 6): resource the job, dmrn the entity's (null for a standalone file), data the job's facts
 * after the transition. Every event of a job carries the source system of the request that created
 * it (automatic analyses: the write that brought the file online).
 */
export async function recordJobEvent(trx: Transaction<AnalysisDb>, type: AnalysisEventType, job: JobRow): Promise<void> {
  const definition = eventType(type);
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
  checkData(type, data);
  await outboxFor(trx, 'analysis', { tenantId: job.tenant_id, sourceSystem: job.source_system }).record({
    type,
    product: definition.product,
    resourceKind: definition.resourceKind,
    resourceId: job.id,
    dmrn: job.dmrn,
    schemaVersion: definition.schemaVersion,
    data,
  });
}
