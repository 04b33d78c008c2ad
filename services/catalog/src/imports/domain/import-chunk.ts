import { MAX_JOB_ROW_ERRORS, type JobRowError } from '@catalog/contracts';
import { inTenantTransaction, outboxFor, type Kysely, type OutboxEvent, type Transaction } from '@catalog/platform';
import { advanceJobQuery, findJob, type JobRow } from '../persistence/import-jobs.js';
import { insertEntitiesQuery } from '../../persistence/entities.js';
import { findImportMatches, updateEntityQuery, upsertImportKeys } from '../persistence/import-keys.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { lookupOf, planChunk, type ChunkPlan } from './import-plan.js';
import type { CheckedRow } from './import-rows.js';
import { jobEvent } from './import-jobs.js';

/** A job.progressed is due once the job got this share of its rows further, or this long after the last one. */
const PROGRESS_SHARE = 0.1;
const PROGRESS_INTERVAL_MS = 5_000;

/** The rows of a chunk: those that passed their checks, the errors of the others, and how many records it spans. */
export interface Chunk {
  rows: CheckedRow[];
  errors: JobRowError[];
  records: number;
}

/** The run a chunk belongs to: the job, the delivery that runs it (`runner`), and the file's row count. */
export interface ImportRun {
  tenantId: string;
  jobId: string;
  runner: string;
  total: number;
}

function progressDue(job: JobRow, processed: number, total: number): boolean {
  if (processed >= total) return false; // job.succeeded follows at once
  const since = job.reported_at === null ? Infinity : Date.now() - job.reported_at.getTime();
  return processed - job.reported_processed >= Math.ceil(total * PROGRESS_SHARE) || since >= PROGRESS_INTERVAL_MS;
}

/** The plan's entity writes (the creations as one statement, then each update); returns their events, creations first. */
async function writeEntities(trx: Transaction<CatalogDb>, job: JobRow, plan: ChunkPlan): Promise<OutboxEvent[]> {
  if (plan.creates.length > 0)
    await insertEntitiesQuery(
      trx,
      plan.creates.map(({ row }) => row),
    ).execute();
  for (const update of plan.updates) await updateEntityQuery(trx, job.tenant_id, update.id, update.changes).execute();
  await upsertImportKeys(trx, job.tenant_id, job.id, plan.keys);
  return [
    ...plan.creates.map(({ event }) => event),
    ...plan.updates.map((update): OutboxEvent => ({
      type: 'entity.updated',
      resourceId: update.id,
      dmrn: update.dmrn,
      data: { changedFields: update.changedFields },
    })),
  ];
}

/**
 * Applies one chunk of an import in one transaction (decision 0134): the job's row is locked and
 * must still be run by `run.runner` (else 'superseded': a newer delivery took the job over and
 * nothing is written); the rows' entities are matched, locked, created or updated with their
 * events, and the job's checkpoint (rows done, counts, the first errors) moves on with them, with
 * a job.progressed when one is due; every event in one statement, its batchId the job id. A crash
 * before the commit leaves the chunk to be done again.
 */
export async function applyChunk(db: Kysely<CatalogDb>, run: ImportRun, chunk: Chunk): Promise<'applied' | 'superseded'> {
  return inTenantTransaction(db, run.tenantId, async (trx) => {
    const job = await findJob(trx, run.tenantId, run.jobId, { forUpdate: true });
    if (!job || job.runner !== run.runner || job.state !== 'running') return 'superseded';
    const matches = await findImportMatches(trx, run.tenantId, lookupOf(chunk.rows));
    const plan = planChunk(run.tenantId, job.id, chunk.rows, matches);
    const events = await writeEntities(trx, job, plan);
    const errors = [...chunk.errors, ...plan.errors].sort((a, b) => a.row - b.row);
    const processed = job.processed + chunk.records;
    const reported = progressDue(job, processed, run.total);
    const tally = {
      ...plan.counts,
      skipped: plan.counts.skipped + chunk.errors.length,
      processed,
      keptErrors: errors.slice(0, Math.max(0, MAX_JOB_ROW_ERRORS - job.error_count)),
      errorCount: errors.length,
      reported,
    };
    await advanceJobQuery(trx, run.tenantId, job.id, tally).execute();
    if (reported) events.push(jobEvent('job.progressed', job, { processed, total: run.total }));
    await outboxFor(trx, 'catalog', { tenantId: job.tenant_id, sourceSystem: job.source_system }, job.id).recordAll(events);
    return 'applied';
  });
}
