import { ANALYSIS_COSTS, type AnalysisType } from '@catalog/contracts';
import { inTenantTransaction, newId, type Kysely, type Transaction } from '@catalog/platform';
import { recordJobEvent } from '../persistence/job-events.js';
import { failJob, insertJob } from '../persistence/jobs.js';
import { insertLedgerEntry, readAccount, reserveFromBalance } from '../persistence/credits.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { insufficientCredits } from './credits.js';

/** What a `version.analyses_requested` event asks for (consumers/analyses-requested.ts reads it). */
export interface AutomaticRequest {
  /** The event's id: one job per (event, type), whatever the deliveries. */
  eventId: string;
  tenantId: string;
  sourceSystem: string;
  dmrn: string | null;
  versionId: string;
  entityId: string;
  assetId: string;
  types: AnalysisType[];
}

/** One automatic job: QUEUED with its cost reserved, or FAILED insufficient_credits when the balance does not cover it. */
async function queueOne(trx: Transaction<AnalysisDb>, request: AutomaticRequest, type: AnalysisType): Promise<void> {
  const cost = ANALYSIS_COSTS[type];
  const job = await insertJob(trx, {
    id: newId(),
    tenantId: request.tenantId,
    type,
    source: { versionId: request.versionId },
    assetId: request.assetId,
    entityId: request.entityId,
    versionId: request.versionId,
    dmrn: request.dmrn,
    options: {},
    cost,
    sourceSystem: request.sourceSystem,
    originEventId: request.eventId,
  });
  // Queued already by an earlier delivery of the event.
  if (!job) return;
  const account = await reserveFromBalance(trx, request.tenantId, cost);
  if (!account) {
    const refused = insufficientCredits((await readAccount(trx, request.tenantId)).balance, cost);
    const failed = await failJob(trx, request.tenantId, job.id, { code: refused.code, message: refused.message });
    if (failed) await recordJobEvent(trx, 'analysis.failed', failed);
    return;
  }
  await insertLedgerEntry(trx, {
    tenantId: request.tenantId,
    kind: 'reserve',
    amount: -cost,
    balanceAfter: account.balance,
    jobId: job.id,
    reason: null,
  });
  await recordJobEvent(trx, 'analysis.queued', job);
}

/**
 * Automatic analyses (decision 0088): a `version.analyses_requested` event queues one job per
 * requested type on the version, charging credits as a request would; a type the balance cannot
 * pay is recorded FAILED `insufficient_credits` (analysis.failed), never dropped. One transaction
 * per event; a redelivered event finds its jobs (one per event and type) and queues nothing again.
 * Each queued job's analysis.queued is its message on the work queue (decision 0126).
 */
export async function queueAutomaticAnalyses(db: Kysely<AnalysisDb>, request: AutomaticRequest): Promise<void> {
  await inTenantTransaction(db, request.tenantId, async (trx) => {
    for (const type of new Set(request.types)) await queueOne(trx, request, type);
  });
}
