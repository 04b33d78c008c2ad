import { unwrap, type CatalogClient } from './client.js';
import { AnalysisFailedError, NetworkError } from './errors.js';
import { sleep } from './sleep.js';
import type { AnalysisJob, AnalysisJobOf, AnalysisOptions, AnalysisSource, AnalysisType, SucceededAnalysis } from './types.js';
import { uploadAsset, type UploadOptions } from './upload/upload.js';
import type { UploadInput } from './upload/file-source.js';

export interface WaitOptions {
  /** Give up after this long (default 10 minutes): a NetworkError with code `analysis_wait_timeout`. */
  timeoutMs?: number;
  /** First wait between polls (default 500 ms); each further one is 1.5 times longer, up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/** Queues an analysis of `type` (the analysis permission; consumes credits), with an Idempotency-Key. */
export async function requestAnalysis<T extends AnalysisType>(
  client: CatalogClient,
  type: T,
  source: AnalysisSource,
  options: { options?: AnalysisOptions; signal?: AbortSignal } = {},
): Promise<AnalysisJobOf<T>> {
  const body = { type, source, ...(options.options ? { options: options.options } : {}) };
  return (await unwrap(client.api.POST('/api/v1/catalog/analyses', { body, signal: options.signal }))) as AnalysisJobOf<T>;
}

/** Reads a job; a result too large for one reply comes from a redirect that fetch follows (decision 0113). */
export async function getAnalysis<T extends AnalysisType = AnalysisType>(
  client: CatalogClient,
  jobId: string,
  signal?: AbortSignal,
): Promise<AnalysisJobOf<T>> {
  return (await unwrap(client.api.GET('/api/v1/catalog/analyses/{jobId}', { params: { path: { jobId } }, signal }))) as AnalysisJobOf<T>;
}

/**
 * Polls the job until it ends, waiting longer each time (500 ms, then 1.5 times more, at most
 * `maxDelayMs`, default 5 s): its typed result when SUCCEEDED, an AnalysisFailedError with the
 * job's error code when FAILED.
 */
export async function waitForAnalysis<T extends AnalysisType = AnalysisType>(
  client: CatalogClient,
  jobId: string,
  options: WaitOptions = {},
): Promise<SucceededAnalysis<T>> {
  const { timeoutMs = 600_000, initialDelayMs = 500, maxDelayMs = 5_000, signal } = options;
  const deadline = Date.now() + timeoutMs;
  let delay = initialDelayMs;
  for (;;) {
    const job = await getAnalysis<T>(client, jobId, signal);
    if (job.status === 'SUCCEEDED') return job as SucceededAnalysis<T>;
    if (job.status === 'FAILED') throw failed(job as AnalysisJob);
    if (Date.now() + delay > deadline) {
      throw new NetworkError({
        status: 0,
        code: 'analysis_wait_timeout',
        message: `analysis ${jobId} still ${job.status} after ${timeoutMs} ms`,
      });
    }
    await sleep(delay, signal);
    delay = Math.min(maxDelayMs, Math.round(delay * 1.5));
  }
}

function failed(job: AnalysisJob): AnalysisFailedError {
  return new AnalysisFailedError({
    status: 200,
    code: job.error?.code ?? 'analysis_failed',
    message: job.error?.message ?? `analysis ${job.jobId} failed`,
    details: { jobId: job.jobId },
  });
}

/** Requests an analysis and waits for its result (see `waitForAnalysis`). */
export async function runAnalysis<T extends AnalysisType>(
  client: CatalogClient,
  type: T,
  source: AnalysisSource,
  options: WaitOptions & { options?: AnalysisOptions } = {},
): Promise<SucceededAnalysis<T>> {
  const job = await requestAnalysis(client, type, source, options);
  return waitForAnalysis<T>(client, job.jobId, options);
}

/**
 * Analyses a file (rule 3 of part 4): uploads it as a standalone asset, requests the analysis and,
 * unless `wait` is false, waits for the result.
 */
export async function analyseFile<T extends AnalysisType>(
  client: CatalogClient,
  type: T,
  file: UploadInput,
  options: WaitOptions & UploadOptions & { options?: AnalysisOptions; wait?: boolean } = {},
): Promise<AnalysisJobOf<T>> {
  const asset = await uploadAsset(client, file, options);
  const job = await requestAnalysis(client, type, { assetId: asset.id }, options);
  return options.wait === false ? job : waitForAnalysis<T>(client, job.jobId, options);
}
