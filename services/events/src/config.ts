import { DEFAULT_MAX_ATTEMPTS, readCommonConfig, type BackoffOptions, type CommonConfig, type EnvReader } from '@catalog/platform';

export interface EventsConfig extends CommonConfig {
  /**
   * HMAC key of feed cursors. Every replica must use the same one (a cursor issued by one replica
   * is read by another); changing it makes every outstanding cursor malformed.
   */
  feedCursorSecret: string;
  feedWriter: FeedWriterConfig;
}

export interface FeedWriterConfig {
  /** Durable consumer name on the events stream. */
  durable: string;
  /** Events stored per feed transaction at most. */
  maxBatch: number;
  /** Unacknowledged deliveries the consumer allows; acks follow each committed batch. */
  maxAckPending: number;
  ackWaitMs: number;
  /** How often a replica that does not write the feed tries to take over. */
  leaseRetryMs: number;
  /** Attempts at an event Postgres refuses (alone) before it is parked in the dead letters (decision 0053). */
  maxAttempts: number;
  /** Pacing of retries (default: 100 ms doubling to 5 s, with jitter). */
  retry?: BackoffOptions;
}

const DEVELOPMENT_CURSOR_SECRET = 'development-only-feed-cursor-secret';

export function readEventsConfig(env: EnvReader): EventsConfig {
  const production = env.optionalString('NODE_ENV') === 'production';
  return {
    ...readCommonConfig(env, 'events', 8084),
    // Required in production; elsewhere a fixed development key keeps local runs and tests simple.
    feedCursorSecret: env.secret('FEED_CURSOR_SECRET', production ? undefined : DEVELOPMENT_CURSOR_SECRET, 32),
    feedWriter: {
      durable: env.string('FEED_CONSUMER_NAME', 'events-feed'),
      maxBatch: env.int('FEED_WRITER_MAX_BATCH', 1000, { min: 1, max: 10_000 }),
      maxAckPending: env.int('FEED_CONSUMER_MAX_ACK_PENDING', 5000, { min: 1 }),
      ackWaitMs: env.int('FEED_CONSUMER_ACK_WAIT_MS', 30_000, { min: 1000 }),
      leaseRetryMs: env.int('FEED_WRITER_LEASE_RETRY_MS', 1000, { min: 50 }),
      maxAttempts: env.int('FEED_WRITER_MAX_ATTEMPTS', DEFAULT_MAX_ATTEMPTS, { min: 1, max: 100 }),
    },
  };
}
