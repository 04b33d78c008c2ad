import {
  AppError,
  inTenantTransaction,
  newId,
  outboxFor,
  type CallContext,
  type Kysely,
  type Logger,
  type Transaction,
} from '@catalog/platform';
import type { ImportFiles } from '../integration/import-files.js';
import { endJobQuery, findJob, setJobTotal, startJobRun, type JobEnd, type JobRow } from '../persistence/import-jobs.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { applyChunk, type Chunk, type ImportRun } from './import-chunk.js';
import { jobEvent } from './import-jobs.js';
import { ImportFileError, importFormatOf, importRecords, type ImportRecord } from './import-records.js';
import { checkRecord } from './import-rows.js';

export interface ImportRunDeps {
  db: Kysely<CatalogDb>;
  files: ImportFiles;
  logger: Logger;
  settings: {
    /** Rows one transaction applies (and the job's checkpoint moves by). */
    chunkRows: number;
    /** Deliveries of a job's message that start it, at most; the next one fails it. */
    maxAttempts: number;
    /** Bytes one row of the file may have (decision 0147). */
    maxRowBytes: number;
  };
}

/** The job a `job.created` event names. */
export interface JobMessage {
  jobId: string;
  tenantId: string;
}

/** Why a job stops for good: its file cannot be read as an import (another attempt cannot mend it). */
function permanentFailure(error: unknown): { code: string; message: string } | null {
  if (error instanceof ImportFileError) return { code: error.code, message: error.message };
  if (error instanceof AppError && error.status < 500) return { code: 'file_unavailable', message: error.message };
  return null;
}

/**
 * A delivery takes the job: null when there is nothing to run (unknown, already ended, or failed
 * now because its attempts are spent), else the job, running, with `runner` as its runner.
 */
async function beginRun(deps: ImportRunDeps, message: JobMessage, runner: string): Promise<JobRow | null> {
  return inTenantTransaction(deps.db, message.tenantId, async (trx) => {
    const job = await findJob(trx, message.tenantId, message.jobId, { forUpdate: true });
    if (!job || job.state === 'succeeded' || job.state === 'failed') return null;
    if (job.attempts >= deps.settings.maxAttempts) {
      const end: JobEnd = { state: 'failed', code: 'max_attempts_exceeded', message: `the job was started ${job.attempts} times` };
      await endWith(trx, job, end);
      return null;
    }
    return startJobRun(trx, message.tenantId, message.jobId, runner);
  });
}

/** Ends the job in `trx` with its job.succeeded or job.failed (counts as its row holds them). */
async function endWith(trx: Transaction<CatalogDb>, job: JobRow, end: JobEnd): Promise<void> {
  const progress = { processed: job.processed, total: job.total ?? 0 };
  const event =
    end.state === 'succeeded'
      ? jobEvent('job.succeeded', job, {
          ...progress,
          created: job.created,
          updated: job.updated,
          unchanged: job.unchanged,
          skipped: job.skipped,
        })
      : jobEvent('job.failed', job, { ...progress, errorCode: end.code });
  const context = { tenantId: job.tenant_id, sourceSystem: job.source_system };
  await endJobQuery(trx, job.tenant_id, job.id, end).execute();
  await outboxFor(trx, 'catalog', context, job.id).record(event);
}

/** Ends the job if `runner` still runs it. */
async function finish(deps: ImportRunDeps, run: ImportRun, end: JobEnd): Promise<void> {
  await inTenantTransaction(deps.db, run.tenantId, async (trx) => {
    const job = await findJob(trx, run.tenantId, run.jobId, { forUpdate: true });
    if (job && job.runner === run.runner && job.state === 'running') await endWith(trx, job, end);
  });
}

/** The records of the job's file, streamed from the asset service. */
async function* recordsOf(deps: ImportRunDeps, call: CallContext, job: JobRow, signal: AbortSignal): AsyncGenerator<ImportRecord> {
  const file = await deps.files.open(call, job.asset_id, signal);
  const format = importFormatOf(file.contentType);
  if (format === null) throw new ImportFileError('unsupported_file', `the file is ${file.contentType}, not JSON Lines or CSV`);
  yield* importRecords(file.bytes, format, { maxRowBytes: deps.settings.maxRowBytes });
}

/** The rows of the file: counted once (a first read), then kept on the job. */
async function totalOf(deps: ImportRunDeps, call: CallContext, job: JobRow, signal: AbortSignal): Promise<number> {
  if (job.total !== null) return job.total;
  let total = 0;
  for await (const _record of recordsOf(deps, call, job, signal)) total += 1;
  await inTenantTransaction(deps.db, job.tenant_id, (trx) => setJobTotal(trx, job.tenant_id, job.id, total));
  return total;
}

/** Reads the file past the rows done and applies the rest chunk by chunk; false when another delivery took the job over. */
async function importRows(deps: ImportRunDeps, call: CallContext, job: JobRow, run: ImportRun, signal: AbortSignal): Promise<boolean> {
  let index = 0;
  let chunk: Chunk = { rows: [], errors: [], records: 0 };
  for await (const record of recordsOf(deps, call, job, signal)) {
    index += 1;
    if (index <= job.processed) continue;
    const checked = checkRecord(record);
    if ('value' in checked) chunk.rows.push(checked);
    else chunk.errors.push(checked);
    chunk.records += 1;
    if (chunk.records < deps.settings.chunkRows) continue;
    if ((await applyChunk(deps.db, run, chunk)) === 'superseded') return false;
    chunk = { rows: [], errors: [], records: 0 };
  }
  return chunk.records === 0 || (await applyChunk(deps.db, run, chunk)) === 'applied';
}

/**
 * Runs the import job a `job.created` event names (decision 0134), from where its checkpoint
 * stands: counts the file's rows once, applies the rest chunk by chunk (each chunk one transaction
 * with the job's checkpoint: a crash redoes at most the chunk in flight), then ends the job. A file
 * that cannot be read fails the job; anything else (the database, the bus) rejects, and the
 * message comes again for another attempt.
 */
export async function runImportJob(deps: ImportRunDeps, message: JobMessage, signal: AbortSignal): Promise<void> {
  const runner = newId();
  const job = await beginRun(deps, message, runner);
  if (!job) return;
  const call: CallContext = { tenantId: job.tenant_id, keyId: null, sourceSystem: job.source_system, requestId: newId() };
  const run: ImportRun = { tenantId: job.tenant_id, jobId: job.id, runner, total: 0 };
  try {
    run.total = await totalOf(deps, call, job, signal);
    if (!(await importRows(deps, call, job, run, signal))) return;
    await finish(deps, run, { state: 'succeeded' });
  } catch (error) {
    const failure = permanentFailure(error);
    if (failure === null) throw error;
    deps.logger.warn({ jobId: job.id, code: failure.code }, 'an import job failed: its file cannot be read');
    await finish(deps, run, { state: 'failed', ...failure });
  }
}
