import type { AnalysisType } from '@catalog/contracts';
import { AppError, newId, type CallContext, type Kysely, type Logger } from '@catalog/platform';
import { AnalysisError, analyzeFile } from '../analyzers/index.js';
import type { FileFetcher } from '../integration/files.js';
import type { JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { withDuplicates } from './duplicates.js';
import { abandonJob, beginJob, completeJob, noteAttemptError } from './transitions.js';

export interface RunJobDeps {
  db: Kysely<AnalysisDb>;
  files: FileFetcher;
  logger: Logger;
  /** After a cue_points job of a version succeeded: its cue points as the version's markers (never throws). */
  afterSuccess?: (job: JobRow, result: unknown) => Promise<void>;
  settings: {
    maxDeliveries: number;
    retryMinMs: number;
    retryMaxMs: number;
    timeoutMs: number;
    ffmpegPath: string;
    ffprobePath: string;
  };
}

/** What to do with the job's message: ack it (the job ended or is not ours to run), or redeliver it later. */
export type JobOutcome = { ack: true } | { ack: false; retryInMs: number };

const ACK: JobOutcome = { ack: true };

/** Why an attempt failed: for good (the job fails now) or for a passing reason (another attempt may succeed). */
interface Failure {
  permanent: boolean;
  code: string;
  message: string;
}

/** Analysis errors that another attempt cannot mend; decoder_unavailable and analysis_timeout may pass. */
const PERMANENT_ANALYSIS_ERRORS = new Set(['unreadable_audio', 'invalid_analysis_options']);

function classify(error: unknown): Failure {
  if (error instanceof AnalysisError)
    return { permanent: PERMANENT_ANALYSIS_ERRORS.has(error.code), code: error.code, message: error.message };
  if (error instanceof AppError && error.status < 500) {
    // The file went away (deleted, or no longer ONLINE) between the request and the run.
    const code = error.status === 404 ? 'source_not_found' : error.status === 409 ? 'source_not_online' : error.code;
    return { permanent: true, code, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { permanent: false, code: 'analysis_failed', message };
}

function retryDelay(deps: RunJobDeps, delivery: number): number {
  return Math.min(deps.settings.retryMaxMs, deps.settings.retryMinMs * 2 ** Math.max(0, delivery - 1));
}

/** The analysis itself: the file copied from the asset service, one decode, the job type's result. */
async function analyse(deps: RunJobDeps, job: JobRow, signal: AbortSignal): Promise<unknown> {
  const call: CallContext = { tenantId: job.tenant_id, keyId: null, sourceSystem: job.source_system, requestId: newId() };
  const file = await deps.files.fetch(call, job.asset_id, signal);
  try {
    const type: AnalysisType = job.type;
    const results = await analyzeFile(file.path, [type], {
      options: job.options,
      ffmpegPath: deps.settings.ffmpegPath,
      ffprobePath: deps.settings.ffprobePath,
      timeoutMs: deps.settings.timeoutMs,
      signal,
    });
    const result = results[type];
    return job.type === 'fingerprint' ? withDuplicates(deps.db, job, results.fingerprint!) : result;
  } finally {
    await file.remove();
  }
}

/**
 * Runs the job a message names (decision 0087), `delivery` being the message's delivery count:
 * - a job that has ended (or a message delivered more than the maximum, its workers having died
 *   with it) is acked; the latter fails the job with `max_deliveries_exceeded` and refunds it;
 * - otherwise the job starts (RUNNING, analysis.started the first time), is analysed, and its
 *   result committed with the settlement of its cost (analysis.succeeded); then the message is acked;
 * - a failure that another attempt cannot mend (unreadable audio, the file gone) fails the job and
 *   refunds it; a passing one is retried after a backoff until the last delivery, which fails it.
 * A stop of the worker (`signal`) during the analysis leaves the job to the next delivery.
 */
export async function runJob(
  deps: RunJobDeps,
  message: { jobId: string; tenantId: string },
  delivery: number,
  signal: AbortSignal,
): Promise<JobOutcome> {
  const { maxDeliveries } = deps.settings;
  if (delivery > maxDeliveries) {
    await abandonJob(deps.db, message.tenantId, message.jobId, {
      code: 'max_deliveries_exceeded',
      message: `the job was attempted ${maxDeliveries} times without finishing (its workers stopped during it)`,
    });
    return ACK;
  }
  const job = await beginJob(deps.db, message.tenantId, message.jobId);
  if (!job) return ACK;
  let result: unknown;
  try {
    result = await analyse(deps, job, signal);
  } catch (error) {
    if (signal.aborted) return { ack: false, retryInMs: 0 };
    const failure = classify(error);
    deps.logger.warn({ jobId: job.id, type: job.type, delivery, failure: failure.code, err: error }, 'an analysis attempt failed');
    if (failure.permanent) {
      await abandonJob(deps.db, job.tenant_id, job.id, { code: failure.code, message: failure.message });
      return ACK;
    }
    if (delivery >= maxDeliveries) {
      await abandonJob(deps.db, job.tenant_id, job.id, {
        code: 'max_deliveries_exceeded',
        message: `the job failed ${maxDeliveries} times; last: ${failure.code}: ${failure.message}`.slice(0, 2_000),
      });
      return ACK;
    }
    await noteAttemptError(deps.db, job.tenant_id, job.id, `${failure.code}: ${failure.message}`);
    return { ack: false, retryInMs: retryDelay(deps, delivery) };
  }
  if ((await completeJob(deps.db, job, result)) && deps.afterSuccess) await deps.afterSuccess(job, result);
  return ACK;
}
