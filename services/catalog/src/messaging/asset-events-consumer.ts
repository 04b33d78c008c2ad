import { jetstream, type JsMsg } from '@nats-io/jetstream';
import {
  decodeBusEvent,
  ensureDurableConsumer,
  ensureEventsStream,
  type BusEvent,
  type Logger,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';

export interface AssetEventsConsumerConfig {
  /** Durable consumer name on the events stream (shared by the catalog's replicas). */
  durable: string;
  ackWaitMs: number;
  maxAckPending: number;
}

export interface AssetEventsConsumerSettings {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  config: AssetEventsConsumerConfig;
  /**
   * Applies one event in a transaction of its own; resolves once committed. `stream` names the
   * incarnation of the events stream (its creation time), `seq` the message's stream sequence.
   */
  handle(event: BusEvent, position: { stream: string; seq: number }): Promise<unknown>;
}

export interface AssetEventsConsumer {
  stop(): Promise<void>;
}

/** The subjects of asset events on the events stream: `<prefix>.events.catalog.asset.<what>`. */
export function assetEventsSubject(subjects: Subjects): string {
  return `${subjects.prefix}.events.catalog.asset.>`;
}

const SET_UP_AGAIN_ON = new Set(['consumer_not_found', 'stream_not_found', 'consumer_deleted']);
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Follows the asset events of the events stream with a durable pull consumer (every replica of the
 * catalog pulls from the same one, so each event goes to one of them):
 * - each message is handled in its own transaction and acked only after that commits; a failure
 *   (Postgres away) is retried in place with backoff, keeping the message in progress, so this
 *   replica never overtakes it; on stop it is nak'ed and redelivered;
 * - handling is idempotent and order-safe by stream sequence (see applyAssetEvent), so
 *   redeliveries and the interleaving of several replicas change nothing;
 * - a message that is not an event is logged and terminated (never redelivered);
 * - a deleted stream or consumer is set up again.
 */
export function startAssetEventsConsumer(settings: AssetEventsConsumerSettings): AssetEventsConsumer {
  const { nc, subjects, config } = settings;
  const log = settings.logger.child({ component: 'asset-events-consumer', consumer: config.durable });
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
        log.warn({ err: error, seq: msg.seq, type: event.type, retryInMs: retryMs }, 'applying an asset event failed; retrying');
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
        durable: config.durable,
        filterSubject: assetEventsSubject(subjects),
        ackWaitMs: config.ackWaitMs,
        maxAckPending: config.maxAckPending,
      });
      const consumer = await jetstream(nc).consumers.get(subjects.eventsStream, config.durable);
      const messages = await consumer.consume({ max_messages: Math.min(100, config.maxAckPending) });
      ended.signal.addEventListener('abort', () => void messages.close().catch(() => undefined), { once: true });
      void (async () => {
        for await (const status of messages.status()) {
          if (SET_UP_AGAIN_ON.has(status.type)) {
            log.warn({ status: status.type }, 'events stream or consumer gone; setting them up again');
            ended.abort();
          }
        }
      })().catch(() => undefined);
      log.info('following asset events');
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
        log.warn({ err: error, retryInMs: retryMs }, 'asset events consumer failed; starting again');
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
      log.info('asset events consumer stopped');
    },
  };
}
