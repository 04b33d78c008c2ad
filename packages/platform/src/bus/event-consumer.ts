import { jetstream, type JsMsg } from '@nats-io/jetstream';
import { createBackoff } from '../support/backoff.js';
import { Env } from '../support/env-schema.js';
import { platformCounter, processMetrics } from '../observability/metrics.js';
import { sleep } from '../support/sleep.js';
import { attemptMessage, type Follower } from './apply-messages.js';
import { attemptBook } from './attempt-book.js';
import type { ConsumerMessage, ConsumerSession, EventConsumerSettings } from './event-consumer-settings.js';
import { deadLetterSink } from './dead-letters.js';
import { ensureDurableConsumer, ensureEventsStream, onConsumerGone } from './jetstream.js';

export type {
  ConsumerMessage,
  ConsumerSession,
  EventConsumerConfig,
  EventConsumerSettings,
  EventPosition,
} from './event-consumer-settings.js';

export interface EventConsumer {
  stop(): Promise<void>;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_MAX_TRANSIENT_ATTEMPTS = 20;

/**
 * The variables of a service's durable consumer: `<name>_CONSUMER`, `_ACK_WAIT_MS`,
 * `_MAX_ACK_PENDING`, `_MAX_ATTEMPTS`, `_MAX_TRANSIENT_ATTEMPTS`.
 */
export function eventConsumerEnv(name: string, defaultDurable: string) {
  return Env.group({
    durable: Env.string({
      env: `${name}_CONSUMER`,
      default: defaultDurable,
      description: 'Durable consumer on the events stream, shared by the replicas.',
    }),
    ackWaitMs: Env.integer({
      env: `${name}_ACK_WAIT_MS`,
      default: 30_000,
      minimum: 1_000,
      description: 'An event not acknowledged within this is redelivered.',
    }),
    maxAckPending: Env.integer({
      env: `${name}_MAX_ACK_PENDING`,
      default: 1_000,
      minimum: 1,
      description: 'Events delivered and not yet acknowledged at most.',
    }),
    maxAttempts: Env.integer({
      env: `${name}_MAX_ATTEMPTS`,
      default: DEFAULT_MAX_ATTEMPTS,
      minimum: 1,
      maximum: 100,
      description: 'Attempts at an event the handler rejects before it is parked in the dead letters (decision 0053).',
    }),
    maxTransientAttempts: Env.integer({
      env: `${name}_MAX_TRANSIENT_ATTEMPTS`,
      default: DEFAULT_MAX_TRANSIENT_ATTEMPTS,
      minimum: 1,
      maximum: 1_000,
      description:
        'Transient failures of an event, counted while other events are applied, before it is parked in the dead letters (decision 0114).',
    }),
  });
}

/**
 * Follows events of the events stream with a durable pull consumer (every replica of a service
 * pulls from the same one, so each event goes to one of them):
 * - each message is handled in its own transaction and acked only after that commits; a failure
 *   is retried with backoff, keeping the message in progress, so this replica never overtakes it
 *   (a `follow` of its own decides where a failing message waits, decision 0114); on stop it is
 *   nak'ed and redelivered;
 * - a message the handler rejects (Postgres refuses its values, the handler throws on its shape, a
 *   call answers 4xx or `reply_too_large`) is parked in the dead-letter stream after
 *   `maxAttempts`, then terminated, and the consumer moves on; a transient failure (a dependency
 *   away, decision 0053) after `maxTransientAttempts` counted while other messages are applied, so
 *   an outage for all parks nothing (AttemptBook); a message that is not an event is parked at once;
 * - handling must be idempotent (redeliveries, several replicas);
 * - a deleted stream or consumer is set up again.
 */
export function startEventConsumer(settings: EventConsumerSettings): EventConsumer {
  const { nc, subjects, durable } = settings;
  const log = settings.logger.child({ component: 'event-consumer', consumer: durable });
  const follower: Omit<Follower, 'book'> = {
    settings,
    log,
    retries: platformCounter(settings.metrics ?? processMetrics, 'retries'),
    park: deadLetterSink({ nc, subjects, logger: log, ...(settings.metrics ? { metrics: settings.metrics } : {}) }),
  };
  const stopping = new AbortController();

  const loop = (async () => {
    const backoff = createBackoff(settings.retry);
    while (!stopping.signal.aborted) {
      const startedAt = Date.now();
      try {
        await followOnce(follower, stopping.signal);
      } catch (error) {
        if (stopping.signal.aborted) break;
        log.warn({ err: error }, 'event consumer failed; starting again');
      }
      // A session that ran a while was not failing: the next one starts from the shortest wait.
      if (Date.now() - startedAt > 30_000) backoff.reset();
      await backoff.wait(stopping.signal);
    }
  })();

  return {
    async stop() {
      stopping.abort();
      await loop;
      log.info('event consumer stopped');
    },
  };
}

/**
 * Handles one message until it is applied (acked), given up on (parked, terminated) or the
 * session ends (nak'ed), retrying in place: without a `follow` the consumer is one lane, in stream order.
 */
async function handleMessage(f: Follower, msg: JsMsg, stream: string, session: AbortSignal): Promise<void> {
  for (;;) {
    const retryInMs = await attemptMessage(f, msg, stream, session);
    if (retryInMs === null) return;
    msg.working();
    await sleep(retryInMs, session);
  }
}

/**
 * One session of following: sets up the stream and the durable consumer, then handles messages in
 * order until the consumer is gone, the connection fails or `stopping` aborts.
 */
async function followOnce(follower: Omit<Follower, 'book'>, stopping: AbortSignal): Promise<void> {
  const { settings, log } = follower;
  const f: Follower = {
    ...follower,
    book: attemptBook({
      maxAttempts: settings.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      maxTransientAttempts: settings.maxTransientAttempts ?? DEFAULT_MAX_TRANSIENT_ATTEMPTS,
      ...(settings.retry ? { retry: settings.retry } : {}),
    }),
  };
  const { nc, subjects, durable } = settings;
  const ended = new AbortController();
  const end = (): void => ended.abort();
  stopping.addEventListener('abort', end, { once: true });
  try {
    const info = await ensureEventsStream(nc, subjects);
    await ensureDurableConsumer(nc, {
      stream: subjects.eventsStream,
      durable,
      filterSubject: settings.filterSubject,
      ackWaitMs: settings.ackWaitMs,
      maxAckPending: settings.maxAckPending,
      ...(settings.fromNewEvents ? { fromNewEvents: true } : {}),
    });
    const consumer = await jetstream(nc).consumers.get(subjects.eventsStream, durable);
    const messages = await consumer.consume({ max_messages: Math.min(100, settings.maxAckPending) });
    const close = (): void => void messages.close().catch(() => undefined);
    // Stopped while setting up: an aborted signal never fires again.
    if (ended.signal.aborted) close();
    else ended.signal.addEventListener('abort', close, { once: true });
    onConsumerGone(messages, log, () => ended.abort());
    log.info({ filterSubject: settings.filterSubject }, 'following events');
    if (settings.follow) {
      await settings.follow(sessionOf(f, messages, info.created, ended.signal));
      return;
    }
    for await (const msg of messages) {
      if (ended.signal.aborted) {
        msg.nak();
        continue;
      }
      await handleMessage(f, msg, info.created, ended.signal);
    }
  } finally {
    stopping.removeEventListener('abort', end);
    ended.abort();
  }
}

/** The session a `follow` takes: its messages, and attempts and acknowledgements kept in the session's book. */
function sessionOf(f: Follower, messages: AsyncIterable<ConsumerMessage>, stream: string, signal: AbortSignal): ConsumerSession {
  return {
    messages,
    stream,
    signal,
    log: f.log,
    attempt: (msg) => attemptMessage(f, msg, stream, signal),
    applied(msg) {
      msg.ack();
      f.book.applied(msg.seq);
    },
  };
}
