import { ANALYSIS_COSTS, ANALYSIS_TYPES, type AnalysisType } from '@catalog/contracts';
import { inTenantTransaction, isUuid, newId, type BusEvent, type Kysely, type Transaction } from '@catalog/platform';
import { insufficientCredits } from '../domain/credits.js';
import { failJob, insertJob, type JobRow } from '../persistence/jobs.js';
import { insertLedgerEntry, readAccount, reserveFromBalance } from '../persistence/credits.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { recordJobEvent } from './events.js';

export interface AutomaticAnalysesDeps {
  db: Kysely<AnalysisDb>;
  /** Puts committed jobs on the work queue (never throws; the dispatcher catches up). */
  dispatch(jobs: readonly JobRow[]): Promise<unknown>;
}

interface Request {
  versionId: string;
  entityId: string;
  assetId: string;
  types: AnalysisType[];
}

/** The request an event of `version.analyses_requested` makes; a TypeError for anything else (the consumer parks it). */
function requestOf(event: BusEvent): Request {
  const data = event.data as { entityId?: unknown; assetId?: unknown; analysisTypes?: unknown };
  const types = Array.isArray(data.analysisTypes) ? data.analysisTypes : [];
  const known = types.every((t): t is AnalysisType => (ANALYSIS_TYPES as readonly unknown[]).includes(t));
  if (!isUuid(event.resourceId) || !isUuid(data.entityId) || !isUuid(data.assetId) || !known || types.length === 0) {
    throw new TypeError('version.analyses_requested without a version, entity, asset or known analysis types');
  }
  return { versionId: event.resourceId, entityId: data.entityId, assetId: data.assetId, types: [...new Set(types)] };
}

/** One automatic job: QUEUED with its cost reserved, or FAILED insufficient_credits when the balance does not cover it. */
async function queueOne(trx: Transaction<AnalysisDb>, event: BusEvent, request: Request, type: AnalysisType): Promise<JobRow | null> {
  const cost = ANALYSIS_COSTS[type];
  const job = await insertJob(trx, {
    id: newId(),
    tenantId: event.tenantId,
    type,
    source: { versionId: request.versionId },
    assetId: request.assetId,
    entityId: request.entityId,
    versionId: request.versionId,
    dmrn: event.dmrn,
    options: {},
    cost,
    sourceSystem: event.sourceSystem,
    originEventId: event.id,
  });
  // Queued already by an earlier delivery of the event.
  if (!job) return null;
  const account = await reserveFromBalance(trx, event.tenantId, cost);
  if (!account) {
    const refused = insufficientCredits((await readAccount(trx, event.tenantId)).balance, cost);
    const failed = await failJob(trx, event.tenantId, job.id, { code: refused.code, message: refused.message });
    if (failed) await recordJobEvent(trx, 'analysis.failed', failed);
    return null;
  }
  await insertLedgerEntry(trx, {
    tenantId: event.tenantId,
    kind: 'reserve',
    amount: -cost,
    balanceAfter: account.balance,
    jobId: job.id,
    reason: null,
  });
  await recordJobEvent(trx, 'analysis.queued', job);
  return job;
}

/**
 * Automatic analyses (decision 0088): a `version.analyses_requested` event queues one job per
 * requested type on the version, charging credits as a request would; a type the balance cannot
 * pay is recorded FAILED `insufficient_credits` (analysis.failed), never dropped. One transaction
 * per event; a redelivered event finds its jobs (one per event and type) and queues nothing again.
 */
export async function queueAutomaticAnalyses(deps: AutomaticAnalysesDeps, event: BusEvent): Promise<void> {
  const request = requestOf(event);
  const queued = await inTenantTransaction(deps.db, event.tenantId, async (trx) => {
    const jobs: JobRow[] = [];
    for (const type of request.types) {
      const job = await queueOne(trx, event, request, type);
      if (job) jobs.push(job);
    }
    return jobs;
  });
  if (queued.length > 0) await deps.dispatch(queued);
}
