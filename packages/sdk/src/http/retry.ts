import { randomUUID } from 'node:crypto';
import { retryAfterMs } from '../errors.js';
import { IDEMPOTENT_OPERATIONS } from '../generated/operations.js';
import { sleep } from '../sleep.js';

/**
 * Retries of the SDK's calls (decision 0138): 429 and 503 are sent again after the server's
 * Retry-After, or after an exponential delay with full jitter; a failed connection, a 504 and a
 * 409 `idempotency_key_in_progress` only when sending again is safe (GET, HEAD, PUT, DELETE, or a
 * create carrying an Idempotency-Key).
 * Every create that takes an Idempotency-Key gets one before its first attempt, the same on every
 * attempt, so a retried create never creates twice (decision 0119).
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retry). */
  maxAttempts: number;
  /** The first delay's upper bound; each further one doubles, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. */
  maxRetryAfterMs: number;
  /** Each attempt's limit (headers received), in milliseconds. */
  attemptTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 120_000,
  attemptTimeoutMs: 60_000,
};

export type Fetch = (request: Request) => Promise<Response>;

export const IDEMPOTENCY_KEY = 'Idempotency-Key';
const RETRIED_STATUSES = new Set([429, 503]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

const templates = IDEMPOTENT_OPERATIONS.map(([method, path]) => ({
  method,
  pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** Whether `method path` is an operation that takes an Idempotency-Key (from the OpenAPI document). */
export function takesIdempotencyKey(method: string, pathname: string): boolean {
  return templates.some((t) => t.method === method && t.pattern.test(pathname));
}

/** The delay before attempt `attempt + 1` (attempt counts from 1): full jitter over the doubling bound. */
export function backoffDelay(policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, attempt: number, random = Math.random): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * bound);
}

/** The request with an Idempotency-Key when its operation takes one and it has none. */
function withIdempotencyKey(request: Request): Request {
  const { pathname } = new URL(request.url);
  if (!takesIdempotencyKey(request.method, pathname) || request.headers.has(IDEMPOTENCY_KEY)) return request;
  const headers = new Headers(request.headers);
  headers.set(IDEMPOTENCY_KEY, randomUUID());
  return new Request(request, { headers });
}

function attemptSignal(request: Request, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
}

/**
 * How long to wait before sending again, or undefined to give up: the answer's Retry-After (plus
 * up to a tenth of it as jitter, so clients told the same time do not return together), else the
 * backoff; never past `maxRetryAfterMs`.
 */
function retryDelay(policy: RetryPolicy, attempt: number, response: Response | undefined, random: () => number): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const asked = response ? retryAfterMs(response.headers.get('retry-after')) : undefined;
  if (asked === undefined) return backoffDelay(policy, attempt, random);
  if (asked > policy.maxRetryAfterMs) return undefined;
  return asked + Math.round(random() * asked * 0.1);
}

/**
 * Whether an answer may be asked again: 429 and 503 always (nothing was done); 504 (the service
 * did not answer in time, the write may have happened) and 409 `idempotency_key_in_progress`
 * (the first request with the key still runs) only when sending again is safe.
 */
async function retriable(response: Response, replayable: boolean): Promise<boolean> {
  if (RETRIED_STATUSES.has(response.status)) return true;
  if (!replayable) return false;
  if (response.status === 504) return true;
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: { code?: unknown } } | null;
  return body?.error?.code === 'idempotency_key_in_progress';
}

/** A fetch over `fetchImpl` that applies the retry policy (see above). */
export function retryingFetch(fetchImpl: Fetch, policy: RetryPolicy, random: () => number = Math.random): Fetch {
  return async (original) => {
    const request = withIdempotencyKey(original);
    const replayable = SAFE_METHODS.has(request.method) || request.headers.has(IDEMPOTENCY_KEY);
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      try {
        response = await fetchImpl(new Request(request.clone(), { signal: attemptSignal(request, policy.attemptTimeoutMs) }));
      } catch (error) {
        if (request.signal?.aborted || !replayable) throw error;
        const delay = retryDelay(policy, attempt, undefined, random);
        if (delay === undefined) throw error;
        await sleep(delay, request.signal);
        continue;
      }
      if (!(await retriable(response, replayable))) return response;
      const delay = retryDelay(policy, attempt, response, random);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}
