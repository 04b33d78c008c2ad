import { jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import {
  decodeBusEvent,
  ensureDurableConsumer,
  ensureEventsStream,
  onConsumerGone,
  runAsLeader,
  sleep,
  type BusEvent,
  type Kysely,
  type Leadership,
  type Logger,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import type { FeedWriterConfig } from '../config.js';
import { loadPosition, PositionMovedError, storeEvents, type StreamPosition } from './store.js';

export interface FeedWriterSettings {
  db: Kysely<any>;
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** For the writer's lease connection. */
  connectionString: string;
  role: string;
  config: FeedWriterConfig;
}

export interface FeedWriter {
  stop(): Promise<void>;
}


/**
 * Fills `events.feed` from the events stream through a durable pull consumer.
 *
 * Messages are applied in stream order, in batches (whatever arrived while the previous batch was
 * being stored, up to `maxBatch`), each batch in one transaction that also advances the writer's
 * stream position; acks follow the commit. The position makes the feed follow the stream exactly:
 * - a delivery at or below the position (a redelivery after a lost ack or a crash) is acked and
 *   dropped;
 * - a delivery above the next expected sequence means messages were delivered elsewhere and not
 *   stored (a crashed writer, a connection lost mid-delivery): they are read from the stream by
 *   sequence and stored first, so a crash never reorders the feed;
 * - ids are unique in the feed, so an event the relay published twice is stored once.
 * One replica writes at a time (advisory-lock lease), so feed transactions follow stream order.
 */
export function startFeedWriter(settings: FeedWriterSettings): FeedWriter {
  const { config, subjects } = settings;
  const log = settings.logger.child({ component: 'feed-writer', consumer: config.durable });
  const stream = subjects.eventsStream;

  const readGap = async (jsm: JetStreamManager, from: number, to: number): Promise<BusEvent[]> => {
    const info = await jsm.streams.info(stream);
    const events: BusEvent[] = [];
    for (let seq = Math.max(from, info.state.first_seq); seq <= to; seq += 1) {
      const stored = await jsm.streams.getMessage(stream, { seq });
      if (!stored) continue; // removed by the stream's limits
      const event = decodeBusEvent(stored.data);
      if (event) events.push(event);
      else log.error({ seq, subject: stored.subject }, 'skipping a message that is not an event');
    }
    log.info({ from, to, recovered: events.length }, 'stored messages delivered elsewhere, read from the stream');
    return events;
  };

  const apply = async (jsm: JetStreamManager, batch: JsMsg[], position: StreamPosition): Promise<StreamPosition> => {
    const sorted = [...batch].sort((a, b) => a.seq - b.seq);
    const fresh: JsMsg[] = [];
    let seen = position.lastSeq;
    for (const msg of sorted) {
      if (msg.seq > seen) {
        fresh.push(msg);
        seen = msg.seq;
      }
    }
    if (fresh.length > 0) {
      const events: BusEvent[] = [];
      let expected = position.lastSeq + 1;
      for (const msg of fresh) {
        if (msg.seq > expected) events.push(...(await readGap(jsm, expected, msg.seq - 1)));
        const event = decodeBusEvent(msg.data);
        if (event) events.push(event);
        else log.error({ seq: msg.seq, subject: msg.subject }, 'skipping a message that is not an event');
        expected = msg.seq + 1;
      }
      const toSeq = fresh[fresh.length - 1]!.seq;
      await storeEvents(settings.db, config.durable, position, toSeq, events);
      position = { streamCreated: position.streamCreated, lastSeq: toSeq };
      log.debug({ stored: events.length, lastSeq: toSeq }, 'stored events');
    }
    for (const msg of batch) msg.ack();
    return position;
  };

  const write = async ({ signal }: Leadership): Promise<void> => {
    const session = new AbortController();
    const end = (): void => session.abort();
    signal.addEventListener('abort', end, { once: true });
    const info = await ensureEventsStream(settings.nc, subjects);
    await ensureDurableConsumer(settings.nc, {
      stream,
      durable: config.durable,
      ackWaitMs: config.ackWaitMs,
      maxAckPending: config.maxAckPending,
    });
    const loaded = await loadPosition(settings.db, config.durable, info.created);
    let position: StreamPosition = { streamCreated: loaded.streamCreated, lastSeq: loaded.lastSeq };
    if (loaded.reset) log.warn({ streamCreated: info.created }, 'the events stream is new; reading it from the start');
    const jsm = await jetstreamManager(settings.nc);
    const consumer = await jetstream(settings.nc).consumers.get(stream, config.durable);

    const buffer: JsMsg[] = [];
    let arrived: (() => void) | null = null;
    const wakeUp = (): void => {
      const resolve = arrived;
      arrived = null;
      resolve?.();
    };
    session.signal.addEventListener('abort', wakeUp, { once: true });
    const messages = await consumer.consume({
      max_messages: Math.min(config.maxBatch, config.maxAckPending),
      callback: (msg) => {
        buffer.push(msg);
        wakeUp();
      },
    });
    onConsumerGone(messages, log, () => session.abort());
    log.info({ lastSeq: position.lastSeq }, 'writing the feed');

    let retryMs = 100;
    try {
      while (!session.signal.aborted) {
        if (buffer.length === 0) {
          await new Promise<void>((resolve) => {
            arrived = resolve;
          });
          continue;
        }
        const batch = buffer.splice(0, config.maxBatch);
        while (!session.signal.aborted) {
          try {
            position = await apply(jsm, batch, position);
            retryMs = 100;
            break;
          } catch (error) {
            if (error instanceof PositionMovedError) {
              log.warn('the feed position moved; reading it again');
              position = await loadPosition(settings.db, config.durable, position.streamCreated);
              continue;
            }
            // Not acked: kept here and retried in order; if this writer stops, redelivered.
            log.warn({ err: error, retryInMs: retryMs }, 'storing events failed; retrying');
            await sleep(retryMs, session.signal);
            retryMs = Math.min(retryMs * 2, 5_000);
          }
        }
      }
    } finally {
      signal.removeEventListener('abort', end);
      await messages.close().catch(() => undefined);
    }
  };

  const leader = runAsLeader(
    { connectionString: settings.connectionString, role: settings.role, lockName: 'events-feed-writer', logger: log, retryMs: config.leaseRetryMs },
    write,
  );
  return {
    async stop() {
      await leader.stop();
    },
  };
}
