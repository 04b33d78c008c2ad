import type { AnalysisOptions, AnalysisType } from '@catalog/contracts';
import { AppError, backoffDelay, newId, type CallContext, type JobOutcome, type Kysely, type Logger } from '@catalog/platform';
import { AnalysisError, analyzeFile } from '../analyzers/index.js';
import type { FileFetcher } from '../integration/files.js';
import type { JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { withDuplicates } from './duplicates.js';
import { resultProblem } from './result-check.js';
import { abandonJob, beginJob, completeJob, noteAttemptError } from './transitions.js';

export interface RunJobDeps {
  db: Kysely<AnalysisDb>;
  files: FileFetcher;
  logger: Logger;
  /** After a cue_points job of a version succeeded: its cue points as the version's markers (never throws). */
  afterSuccess?: (job: JobRow, result: unknown) => Promise<void>;
  /** The analysis engine (default `analyzeFile`): one decode of the file, a result per type. */
  analyze?: typeof analyzeFile | undefined;
  settings: {
    maxDeliveries: number;
    retryMinMs: number;
    retryMaxMs: number;
    timeoutMs: number;
    ffmpegPath: string;
    ffprobePath: string;
  };
}

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

/** A job's result, or why it may not be stored. */
type Outcome = { result: unknown } | { problem: string };

/** The analysis itself: the file copied from the asset service, one decode for every job of the batch, each job's result. */
async function analyse(deps: RunJobDeps, batch: readonly JobRow[], signal: AbortSignal): Promise<Map<string, Outcome>> {
  const lead = batch[0]!;
  const call: CallContext = { tenantId: lead.tenant_id, keyId: null, sourceSystem: lead.source_system, requestId: newId() };
  const file = await deps.files.fetch(call, lead.asset_id, signal);
  try {
    const types: AnalysisType[] = batch.map((job) => job.type);
    // Each job holds its own type's options only; together they are the batch's.
    const options = Object.assign({}, ...batch.map((job) => job.options)) as AnalysisOptions;
    const results = await (deps.analyze ?? analyzeFile)(file.path, types, {
      options,
      ffmpegPath: deps.settings.ffmpegPath,
      ffprobePath: deps.settings.ffprobePath,
      timeoutMs: deps.settings.timeoutMs,
      signal,
    });
    const byJob = new Map<string, Outcome>();
    for (const job of batch) {
      const result = results[job.type];
      // A result is checked against its type's schema before anything stores or reads it.
      const problem = resultProblem(job.type, result);
      if (problem !== null) byJob.set(job.id, { problem });
      else byJob.set(job.id, { result: job.type === 'fingerprint' ? await withDuplicates(deps.db, job, results.fingerprint!) : result });
    }
    return byJob;
  } finally {
    await file.remove();
  }
}

/**
 * After a failed attempt: every job of the batch fails for good (a failure another attempt cannot
 * mend, or the message's last attempt: the batch rides on it), or waits for the next attempt.
 */
async function afterFailure(deps: RunJobDeps, batch: readonly JobRow[], failure: Failure, last: boolean): Promise<void> {
  const attempts = batch[0]!.attempts;
  // The lead (first) ends last: while it has not, its message takes over the rest should this stop halfway.
  for (const job of [...batch].reverse()) {
    if (failure.permanent) await abandonJob(deps.db, job.tenant_id, job.id, { code: failure.code, message: failure.message });
    else if (last) {
      await abandonJob(deps.db, job.tenant_id, job.id, {
        code: 'max_deliveries_exceeded',
        message: `the job failed ${attempts} times; last: ${failure.code}: ${failure.message}`.slice(0, 2_000),
      });
    } else await noteAttemptError(deps.db, job.tenant_id, job.id, `${failure.code}: ${failure.message}`);
  }
}

/**
 * Runs the job a message names (decisions 0087, 0126):
 * - a job that has ended, or that another job's batch carries, is acked;
 * - otherwise the job starts (RUNNING, one more attempt, analysis.started the first time) with the
 *   other QUEUED jobs of its file, one per type (one decode for all); a message that comes again
 *   (its worker stopped) takes its job over with its batch; one started more than
 *   ANALYSIS_MAX_DELIVERIES times (its workers died during it) fails `max_deliveries_exceeded`;
 * - each result is committed with the settlement of its cost (analysis.succeeded), then the
 *   message is acked;
 * - a failure that another attempt cannot mend (unreadable audio, the file gone) fails the jobs and
 *   refunds them; a passing one is retried after a backoff until their last attempt, which fails them.
 * A stop of the worker (`signal`) during the analysis gives the message back at once.
 */
export async function runJob(deps: RunJobDeps, message: { jobId: string; tenantId: string }, signal: AbortSignal): Promise<JobOutcome> {
  const { maxDeliveries, retryMinMs, retryMaxMs } = deps.settings;
  const begun = await beginJob(deps.db, message.tenantId, message.jobId, maxDeliveries);
  if (!('batch' in begun)) return ACK;
  const { batch } = begun;
  const attempts = batch[0]!.attempts;
  if (attempts > maxDeliveries) {
    const message = `the job was started ${maxDeliveries} times without finishing (its workers stopped during it)`;
    await afterFailure(deps, batch, { permanent: true, code: 'max_deliveries_exceeded', message }, true);
    return ACK;
  }
  let results: Map<string, Outcome>;
  try {
    results = await analyse(deps, batch, signal);
  } catch (error) {
    if (signal.aborted) return { ack: false, retryInMs: 0 };
    const failure = classify(error);
    deps.logger.warn({ jobs: batch.map((j) => j.id), failure: failure.code, err: error }, 'an analysis attempt failed');
    const last = failure.permanent || attempts >= maxDeliveries;
    await afterFailure(deps, batch, failure, last);
    return last ? ACK : { ack: false, retryInMs: backoffDelay({ minMs: retryMinMs, maxMs: retryMaxMs, jitter: 0 }, attempts) };
  }
  // The lead last, as in afterFailure: a worker stopping halfway leaves the rest to the lead's message.
  for (const done of [...batch].reverse()) await commitOutcome(deps, done, results.get(done.id)!);
  return ACK;
}

/**
 * Commits one job's end: its result (then its cue points as markers), or, for a result that does
 * not match its type's schema, FAILED `invalid_result` and refunded like any failure.
 */
async function commitOutcome(deps: RunJobDeps, job: JobRow, outcome: Outcome): Promise<void> {
  if ('problem' in outcome) {
    deps.logger.error({ jobId: job.id, type: job.type, problem: outcome.problem }, 'an analyzer gave an invalid result; the job fails');
    await abandonJob(deps.db, job.tenant_id, job.id, { code: 'invalid_result', message: outcome.problem.slice(0, 2_000) });
    return;
  }
  if ((await completeJob(deps.db, job, outcome.result)) && deps.afterSuccess) await deps.afterSuccess(job, outcome.result);
}
