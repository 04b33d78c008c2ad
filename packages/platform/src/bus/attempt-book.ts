import { createBackoff, type Backoff, type BackoffOptions } from '../support/backoff.js';
import type { DeadLetterKind } from './dead-letters.js';
import type { FailureKind } from './failure-kind.js';

/** How long a consumer keeps trying a message that fails (decision 0114). */
export interface AttemptLimits {
  /** Rejected attempts (the message's fault, decision 0053) before it is parked. */
  maxAttempts: number;
  /** Transient failures, counted while other messages are applied, before it is parked. */
  maxTransientAttempts: number;
  retry?: BackoffOptions;
}

/** What to do after a failed attempt: park the message, or try it again after `retryInMs`. */
export type AfterFailure = { park: DeadLetterKind; attempts: number } | { park: null; attempts: number; retryInMs: number };

interface MessageAttempts {
  rejected: number;
  transient: number;
  all: number;
  /** Messages the session had applied at this message's last failure. */
  appliedAtLastFailure: number;
  backoff: Backoff;
}

/**
 * The failed attempts at the messages of one session of a consumer, by stream sequence (a
 * redelivery of a message is the same message). A rejected attempt always counts. A transient one
 * counts only when the consumer applied some other message since this message last failed: then
 * the failure is this message's (one tenant's entity, one dependency answer), not everyone's,
 * and it is parked after `maxTransientAttempts`; while nothing else gets through (Postgres, NATS
 * or a service away for all) it is retried for as long as that lasts, and nothing is parked.
 */
export interface AttemptBook {
  /** The message was applied (or acknowledged together with others): its attempts are forgotten. */
  applied(seq: number): void;
  /** The message was parked or handed back: its attempts are forgotten. */
  forget(seq: number): void;
  failed(seq: number, kind: FailureKind): AfterFailure;
}

export function attemptBook(limits: AttemptLimits): AttemptBook {
  const bySeq = new Map<number, MessageAttempts>();
  let appliedCount = 0;
  return {
    applied(seq) {
      appliedCount += 1;
      bySeq.delete(seq);
    },
    forget(seq) {
      bySeq.delete(seq);
    },
    failed(seq, kind) {
      let entry = bySeq.get(seq);
      if (!entry) {
        entry = { rejected: 0, transient: 0, all: 0, appliedAtLastFailure: -1, backoff: createBackoff(limits.retry) };
        bySeq.set(seq, entry);
      }
      entry.all += 1;
      if (kind === 'rejected') entry.rejected += 1;
      else if (appliedCount !== entry.appliedAtLastFailure) entry.transient += 1;
      entry.appliedAtLastFailure = appliedCount;
      const park: DeadLetterKind | null =
        entry.rejected >= limits.maxAttempts ? 'rejected' : entry.transient >= limits.maxTransientAttempts ? 'transient' : null;
      if (park !== null) {
        bySeq.delete(seq);
        return { park, attempts: entry.all };
      }
      return { park: null, attempts: entry.all, retryInMs: entry.backoff.nextDelayMs() };
    },
  };
}
