import { jetstream, type JsMsg } from '@nats-io/jetstream';
import type { EnvReader } from '../config.js';
import type { Logger } from '../logger.js';
import { sleep } from '../sleep.js';
import type { NatsConnection } from './connect.js';
import { decodeBusEvent, type BusEvent } from './event-message.js';
import { ensureDurableConsumer, ensureEventsStream, onConsumerGone } from './jetstream.js';
import type { Subjects } from './subjects.js';

/** Where a message stands: the incarnation of the events stream (its creation time) and its stream sequence. */
export interface EventPosition {
  stream: string;
  seq: number;
}

/** The durable consumer's settings a service reads from its environment. */
export interface EventConsumerConfig {
  /** Durable consumer name on the events stream (shared by the service's replicas). */
  durable: string;
  ackWaitMs: number;
  maxAckPending: number;
}

export interface EventConsumerSettings extends EventConsumerConfig {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** The events it follows, e.g. `<prefix>.events.catalog.asset.>`. */
  filterSubject: string;
  /** Applies one event in a transaction of its own; resolves once committed. */
  handle(event: BusEvent, position: EventPosition): Promise<unknown>;
}

export interface EventConsumer {
  stop(): Promise<void>;
}

/**
 * `<name>_CONSUMER` (default `defaultDurable`), `<name>_ACK_WAIT_MS` (30000) and
 * `<name>_MAX_ACK_PENDING` (1000): the settings of a service's durable consumer.
 */
export function readEventConsumerConfig(env: EnvReader, name: string, defaultDurable: string): EventConsumerConfig {
  return {
    durable: env.string(`${name}_CONSUMER`, defaultDurable),
    ackWaitMs: env.int(`${name}_ACK_WAIT_MS`, 30_000, { min: 1_000 }),
    maxAckPending: env.int(`${name}_MAX_ACK_PENDING`, 1_000, { min: 1 }),
  };
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * Follows events of the events stream with a durable pull consumer (every replica of a service
 * pulls from the same one, so each event goes to one of them):
 * - each message is handled in its own transaction and acked only after that commits; a failure
 *   (Postgres away) is retried in place with backoff, keeping the message in progress, so this
 *   replica never overtakes it; on stop it is nak'ed and redelivered;
 * - handling must be idempotent (redeliveries, several replicas);
 * - a message that is not an event is logged and terminated (never redelivered);
 * - a deleted stream or consumer is set up again.
 */
export function startEventConsumer(settings: EventConsumerSettings): EventConsumer {
  const { nc, subjects, durable } = settings;
  const log = settings.logger.child({ component: 'event-consumer', consumer: durable });
  const stopping = new AbortController();

  const handleMessage = async (msg: JsMsg, stream: string, session: AbortSignal): Promise<void> => {
    const event = decodeBusEvent(msg.data);
    if (!event) {
      log.error({ seq: msg.seq, subject: msg.subject }, 'terminating a message that is not an event');
      msg.term('not an event');
      return;
    }
    let retryMs = RETRY_MIN_MS;
    for (;;) {
      try {
        await settings.handle(event, { stream, seq: msg.seq });
        msg.ack();
        return;
      } catch (error) {
        if (session.aborted) {
          msg.nak();
          return;
        }
        log.warn({ err: error, seq: msg.seq, type: event.type, retryInMs: retryMs }, 'handling an event failed; retrying');
        msg.working();
        await sleep(retryMs, session);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    }
  };

  const session = async (): Promise<void> => {
    const ended = new AbortController();
    const end = (): void => ended.abort();
    stopping.signal.addEventListener('abort', end, { once: true });
    try {
      const info = await ensureEventsStream(nc, subjects);
      await ensureDurableConsumer(nc, {
        stream: subjects.eventsStream,
        durable,
        filterSubject: settings.filterSubject,
        ackWaitMs: settings.ackWaitMs,
        maxAckPending: settings.maxAckPending,
      });
      const consumer = await jetstream(nc).consumers.get(subjects.eventsStream, durable);
      const messages = await consumer.consume({ max_messages: Math.min(100, settings.maxAckPending) });
      const close = (): void => void messages.close().catch(() => undefined);
      // Stopped while setting up: an aborted signal never fires again.
      if (ended.signal.aborted) close();
      else ended.signal.addEventListener('abort', close, { once: true });
      onConsumerGone(messages, log, () => ended.abort());
      log.info({ filterSubject: settings.filterSubject }, 'following events');
      for await (const msg of messages) {
        if (ended.signal.aborted) {
          msg.nak();
          continue;
        }
        await handleMessage(msg, info.created, ended.signal);
      }
    } finally {
      stopping.signal.removeEventListener('abort', end);
      ended.abort();
    }
  };

  const loop = (async () => {
    let retryMs = RETRY_MIN_MS;
    while (!stopping.signal.aborted) {
      const startedAt = Date.now();
      try {
        await session();
      } catch (error) {
        if (stopping.signal.aborted) break;
        log.warn({ err: error, retryInMs: retryMs }, 'event consumer failed; starting again');
      }
      if (Date.now() - startedAt > 30_000) retryMs = RETRY_MIN_MS;
      await sleep(retryMs, stopping.signal);
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
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
