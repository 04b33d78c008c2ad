import { GATEWAY_KEY_CHANGES_SUBJECT } from '@catalog/contracts';
import type { Logger, NatsConnection, Subjects } from '@catalog/platform';

/**
 * The notices by which gateway replicas tell each other that the API-key table changed (decision
 * 0070): a plain NATS message without data on `<prefix>.gateway.key-changes`. A notice only makes
 * each replica read the change log in Postgres at once instead of at its next poll; a lost notice
 * delays a change by at most the poll, within the bound.
 */
export function keyChangesSubject(subjects: Subjects): string {
  return `${subjects.prefix}.${GATEWAY_KEY_CHANGES_SUBJECT}`;
}

/** Tells every replica (this one included) that the key table changed. */
export function announceKeyChange(nc: NatsConnection, subjects: Subjects, logger: Logger): void {
  try {
    nc.publish(keyChangesSubject(subjects));
  } catch (error) {
    logger.warn({ err: error }, 'could not announce an API-key change; replicas see it at their next poll');
  }
}

/** Calls `onNotice` for every notice; returns the unsubscribe. */
export function followKeyChanges(nc: NatsConnection, subjects: Subjects, onNotice: () => void): () => void {
  const subscription = nc.subscribe(keyChangesSubject(subjects), { callback: () => onNotice() });
  return () => subscription.unsubscribe();
}
