import { sql, type QueryExecutorProvider } from 'kysely';
import { AppError } from '../support/errors.js';

/** A tenant's cap on one queue's unfinished jobs. */
export interface QueuedJobCap {
  /** Names the queue (in the lock and in the error). */
  queue: string;
  tenantId: string;
  /** Jobs queued or running the tenant may have at once. */
  max: number;
  /** The Retry-After of a refusal: about how long a job of the queue runs. */
  retryAfterSeconds: number;
}

/**
 * Refuses a tenant's new job while it has `cap.max` unfinished ones: 429 `too_many_queued_jobs`
 * with Retry-After (decision 0150). Runs in the transaction that inserts the job, after a lock of
 * the tenant's queue (held to its commit), so concurrent requests count in turn and the cap holds
 * exactly. `countUnfinished(limit)` counts the tenant's queued and running jobs, up to `limit`.
 */
export async function checkQueuedJobCap(
  trx: QueryExecutorProvider,
  cap: QueuedJobCap,
  countUnfinished: (limit: number) => Promise<number>,
): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${cap.queue}), hashtext(${cap.tenantId}))`.execute(trx);
  const unfinished = await countUnfinished(cap.max);
  if (unfinished < cap.max) return;
  throw new AppError(
    429,
    'too_many_queued_jobs',
    `this organization has ${cap.max} ${cap.queue} queued or running, the most it may have; retry once some have ended`,
    { limit: cap.max, retryAfterSeconds: cap.retryAfterSeconds },
  );
}
