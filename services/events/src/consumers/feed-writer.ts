import { jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import {
  createBackoff,
  deadLetterSink,
  ensureDeadLetterStream,
  ensureDurableConsumer,
  ensureEventsStream,
  onConsumerGone,
  platformCounter,
  processMetrics,
  runAsLeader,
  sleep,
  type Counter,
  type Kysely,
  type Leadership,
  type Logger,
  type MetricsRegistry,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import type { FeedWriterConfig } from '../config.js';
import { entryOf, type StreamEntry } from '../domain/stream-entry.js';
import { positionMoved, readPosition, writeEntries, type EntryWriter } from '../domain/write-entries.js';
import type { StreamPosition } from '../persistence/stream-position.js';
import type { EventsDb } from '../persistence/tables.js';
import { readStreamRange } from './stream-entries.js';

export interface FeedWriterSettings {
  db: Kysely<EventsDb>;
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** For the writer's lease connection. */
  connectionString: string;
  role: string;
  config: FeedWriterConfig;
  metrics?: MetricsRegistry;
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
 * - ids are unique in the feed, so an event the relay published twice is stored once;
 * - one bad message never halts the feed (decision 0053): a message that is no event is parked in
 *   the dead-letter stream at once, one Postgres refuses is isolated from its batch and parked
 *   after its attempts (`writeEntries`); a transient failure (Postgres away) is retried with
 *   backoff for as long as it lasts and parks nothing.
 * One replica writes at a time (advisory-lock lease), so feed transactions follow stream order.
 */
export function startFeedWriter(settings: FeedWriterSettings): FeedWriter {
  const log = settings.logger.child({ component: 'feed-writer', consumer: settings.config.durable });
  const metrics = settings.metrics ?? processMetrics;
  const parts: WriterParts = {
    settings,
    log,
    park: deadLetterSink({ nc: settings.nc, subjects: settings.subjects, logger: log, metrics }),
    retries: platformCounter(metrics, 'retries'),
  };
  const leader = runAsLeader(
    {
      connectionString: settings.connectionString,
      role: settings.role,
      lockName: 'events-feed-writer',
      logger: log,
      retryMs: settings.config.leaseRetryMs,
    },
    (leadership) => writeWhileLeader(parts, leadership),
  );
  return {
    async stop() {
      await leader.stop();
    },
  };
}

/** What the writer's steps share. */
interface WriterParts {
  settings: FeedWriterSettings;
  log: Logger;
  park: EntryWriter['park'];
  retries: Counter;
}

/** Writes the feed while this replica holds the lease: consumes the stream batch by batch. */
async function writeWhileLeader(p: WriterParts, { signal }: Leadership): Promise<void> {
  const { settings, log } = p;
  const { config, subjects } = settings;
  const stream = subjects.eventsStream;
  const session = new AbortController();
  const end = (): void => session.abort();
  signal.addEventListener('abort', end, { once: true });
  const info = await ensureEventsStream(settings.nc, subjects);
  await ensureDeadLetterStream(settings.nc, subjects);
  await ensureDurableConsumer(settings.nc, {
    stream,
    durable: config.durable,
    ackWaitMs: config.ackWaitMs,
    maxAckPending: config.maxAckPending,
  });
  const loaded = await readPosition(settings.db, config.durable, info.created);
  let position: StreamPosition = { streamCreated: loaded.streamCreated, lastSeq: loaded.lastSeq };
  if (loaded.reset) log.warn({ streamCreated: info.created }, 'the events stream is new; reading it from the start');
  const jsm = await jetstreamManager(settings.nc);
  const consumer = await jetstream(settings.nc).consumers.get(stream, config.durable);
  const buffer = messageBuffer(session.signal);
  const messages = await consumer.consume({ max_messages: Math.min(config.maxBatch, config.maxAckPending), callback: buffer.push });
  onConsumerGone(messages, log, () => session.abort());
  log.info({ lastSeq: position.lastSeq }, 'writing the feed');
  const writer: EntryWriter = {
    db: settings.db,
    consumer: config.durable,
    stream,
    park: p.park,
    retries: p.retries,
    log,
    maxAttempts: config.maxAttempts,
    ...(config.retry ? { retry: config.retry } : {}),
    signal: session.signal,
  };
  const parked = new Set<number>();
  try {
    while (!session.signal.aborted) {
      const batch = await buffer.take(config.maxBatch);
      if (batch.length > 0) position = await applyBatch(p, writer, jsm, batch, position, parked);
    }
  } finally {
    signal.removeEventListener('abort', end);
    await messages.close().catch(() => undefined);
  }
}

/** Stores one batch, retrying (with backoff) until it is stored or the session ends; acks follow. */
async function applyBatch(
  p: WriterParts,
  w: EntryWriter,
  jsm: JetStreamManager,
  batch: JsMsg[],
  from: StreamPosition,
  parked: Set<number>,
): Promise<StreamPosition> {
  const backoff = createBackoff(p.settings.config.retry);
  let position = from;
  while (!w.signal.aborted) {
    try {
      position = await writeEntries(w, position, await freshEntries(p.log, jsm, w.stream, batch, position), parked);
      for (const seq of parked) if (seq <= position.lastSeq) parked.delete(seq);
      for (const msg of batch) msg.ack();
      p.log.debug({ lastSeq: position.lastSeq }, 'stored events');
      return position;
    } catch (error) {
      if (positionMoved(error)) {
        p.log.warn('the feed position moved; reading it again');
        position = await readPosition(p.settings.db, w.consumer, position.streamCreated);
        continue;
      }
      if (w.signal.aborted) break;
      // Not acked: kept here and retried in order; if this writer stops, redelivered.
      p.retries.inc({ consumer: w.consumer, kind: 'transient' });
      const retryInMs = backoff.nextDelayMs();
      p.log.warn({ err: error, retryInMs }, 'storing events failed; retrying');
      await sleep(retryInMs, w.signal);
    }
  }
  return position;
}

/** The batch's messages after `position`, in stream order, with what the stream holds between them. */
async function freshEntries(
  log: Logger,
  jsm: JetStreamManager,
  stream: string,
  batch: JsMsg[],
  position: StreamPosition,
): Promise<StreamEntry[]> {
  const entries: StreamEntry[] = [];
  let expected = position.lastSeq + 1;
  for (const msg of [...batch].sort((a, b) => a.seq - b.seq)) {
    if (msg.seq < expected) continue;
    if (msg.seq > expected) {
      const missing = await readStreamRange(jsm, stream, expected, msg.seq - 1);
      log.info({ from: expected, to: msg.seq - 1, recovered: missing.length }, 'stored messages delivered elsewhere, read from the stream');
      entries.push(...missing);
    }
    entries.push(entryOf(msg.seq, msg.subject, msg.data));
    expected = msg.seq + 1;
  }
  return entries;
}

/** Messages as the consumer delivers them; `take` waits for at least one (none once `signal` aborts). */
function messageBuffer(signal: AbortSignal): { push: (msg: JsMsg) => void; take: (max: number) => Promise<JsMsg[]> } {
  const buffer: JsMsg[] = [];
  let arrived: (() => void) | null = null;
  const wakeUp = (): void => {
    const resolve = arrived;
    arrived = null;
    resolve?.();
  };
  signal.addEventListener('abort', wakeUp, { once: true });
  return {
    push(msg) {
      buffer.push(msg);
      wakeUp();
    },
    async take(max) {
      if (buffer.length === 0 && !signal.aborted) {
        await new Promise<void>((resolve) => {
          arrived = resolve;
        });
      }
      return buffer.splice(0, max);
    },
  };
}
