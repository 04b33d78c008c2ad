import { commonConfig, defineConfig, DEFAULT_MAX_ATTEMPTS, Env, type BackoffOptions, type ConfigOf } from '@catalog/platform';

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

export interface FeedPrunerConfig {
  /** Feed rows received more than this many days ago are deleted (at least the 30-day replay window). */
  retentionDays: number;
  /** How often the pruning replica looks for expired rows. */
  intervalMs: number;
  /** Rows deleted per statement (one short transaction each). */
  batchSize: number;
}

const common = commonConfig('events', 8084);
const DEVELOPMENT_CURSOR_SECRET = 'development-only-feed-cursor-secret';

export const eventsConfig = defineConfig(
  Env.group({
    common: common.schema,
    nodeEnv: Env.optional(Env.string({ env: 'NODE_ENV', description: '`production` makes `FEED_CURSOR_SECRET` required.' })),
    feedCursorSecret: Env.optional(
      Env.secret({
        env: 'FEED_CURSOR_SECRET',
        minLength: 32,
        defaultText: 'a fixed development key; required when `NODE_ENV=production`',
        description:
          'Key the feed cursors are sealed with (each feed derives its own, decision 0152), the same on every replica (a cursor ' +
          'issued by one is read by another); changing it makes every outstanding cursor malformed.',
      }),
    ),
    feedWaitPollMs: Env.integer({
      env: 'FEED_WAIT_POLL_MS',
      default: 250,
      minimum: 20,
      maximum: 5000,
      description:
        'A long poll of the feed (`wait`) reads its empty page again this often: an event is answered within this of becoming ' +
        'visible; each held request costs one indexed read per interval (decision 0159).',
    }),
    feedWriter: Env.group({
      durable: Env.string({ env: 'FEED_CONSUMER_NAME', default: 'events-feed', description: 'Durable consumer of the feed writer.' }),
      maxBatch: Env.integer({
        env: 'FEED_WRITER_MAX_BATCH',
        default: 1000,
        minimum: 1,
        maximum: 10_000,
        description: 'Events stored per feed transaction at most.',
      }),
      maxAckPending: Env.integer({
        env: 'FEED_CONSUMER_MAX_ACK_PENDING',
        default: 5000,
        minimum: 1,
        description: 'Unacknowledged deliveries the consumer allows; acks follow each committed batch.',
      }),
      ackWaitMs: Env.integer({
        env: 'FEED_CONSUMER_ACK_WAIT_MS',
        default: 30_000,
        minimum: 1000,
        description: 'An event not acknowledged within this is redelivered.',
      }),
      leaseRetryMs: Env.integer({
        env: 'FEED_WRITER_LEASE_RETRY_MS',
        default: 1000,
        minimum: 50,
        description: 'How often a replica that does not write the feed tries to take over.',
      }),
      maxAttempts: Env.integer({
        env: 'FEED_WRITER_MAX_ATTEMPTS',
        default: DEFAULT_MAX_ATTEMPTS,
        minimum: 1,
        maximum: 100,
        description: 'Attempts at an event Postgres refuses before it is parked in the dead letters (decision 0053).',
      }),
    }),
    feedPruner: Env.group({
      retentionDays: Env.integer({
        env: 'FEED_RETENTION_DAYS',
        default: 35,
        // The interface promises consumers a 30-day replay window; the database refuses to delete younger rows too.
        minimum: 30,
        maximum: 3650,
        description:
          'Feed events received more than this many days ago are deleted (decision 0168); at least the 30-day replay window the ' +
          'interface promises, so the feed holds about this many days of events.',
      }),
      intervalMs: Env.integer({
        env: 'FEED_PRUNE_INTERVAL_MS',
        default: 60_000,
        minimum: 100,
        maximum: 3_600_000,
        description: 'How often the pruning replica (one at a time, a lease) deletes expired feed events.',
      }),
      batchSize: Env.integer({
        env: 'FEED_PRUNE_BATCH_SIZE',
        default: 10_000,
        minimum: 1,
        maximum: 100_000,
        description: 'Expired feed events deleted per statement, each in a short transaction of its own.',
      }),
    }),
  }),
  ({ common: commonValues, nodeEnv, feedCursorSecret, feedWaitPollMs, feedWriter, feedPruner }, check) => ({
    ...common.build(commonValues, check),
    // Required in production; elsewhere a fixed development key keeps local runs and tests simple.
    feedCursorSecret:
      nodeEnv === 'production' ? check.required('FEED_CURSOR_SECRET', feedCursorSecret) : (feedCursorSecret ?? DEVELOPMENT_CURSOR_SECRET),
    feedWaitPollMs,
    feedWriter,
    feedPruner,
  }),
);

export type EventsConfig = ConfigOf<typeof eventsConfig>;
