/**
 * Every subject and stream name starts with a deployment prefix (NATS_PREFIX), so several
 * deployments (or test runs) can share one NATS server without seeing each other.
 */
export interface Subjects {
  prefix: string;
  rpc(service: string, operation: string): string;
  events(product: string, type: string): string;
  eventsWildcard: string;
  eventsStream: string;
  /** Where a consumer parks a message it gave up on (decision 0053). */
  deadLetters(consumer: string): string;
  deadLettersWildcard: string;
  deadLettersStream: string;
}

export function subjectsFor(prefix: string): Subjects {
  if (!/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`invalid NATS prefix "${prefix}"`);
  return {
    prefix,
    rpc: (service, operation) => `${prefix}.rpc.${service}.${operation}`,
    events: (product, type) => `${prefix}.events.${product}.${type}`,
    eventsWildcard: `${prefix}.events.>`,
    eventsStream: `${prefix}_events`.toUpperCase().replace(/-/g, '_'),
    deadLetters: (consumer) => `${prefix}.dead-letters.${consumer}`,
    deadLettersWildcard: `${prefix}.dead-letters.>`,
    deadLettersStream: `${prefix}_dead_letters`.toUpperCase().replace(/-/g, '_'),
  };
}
