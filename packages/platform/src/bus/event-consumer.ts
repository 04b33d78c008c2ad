import { jetstream, type JsMsg } from '@nats-io/jetstream';
import { createBackoff, type BackoffOptions } from '../backoff.js';
import { Env } from '../config/env-schema.js';
import type { Logger } from '../logger.js';
import { platformCounter, processMetrics, type Counter, type MetricsRegistry } from '../metrics.js';
import { sleep } from '../sleep.js';
import type { NatsConnection } from './connect.js';
import { deadLetterSink, type DeadLetter, type DeadLetterKind } from './dead-letters.js';
import { decodeBusEvent, type BusEvent } from './event-message.js';
import { describeFailure, failureKind } from './failure-kind.js';
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
  /** Attempts at an event its handler rejects before it is parked in the dead letters (default 5). */
  maxAttempts?: number;
  /** With `laneOf`: lanes applied at once at most (default 1). */
  concurrency?: number;
  /** With `handleLanes`: lanes waiting for a slot that one slot takes together at most (default 1). */
  lanesPerBatch?: number;
}

export interface EventConsumerSettings extends EventConsumerConfig {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** The events it follows, e.g. `<prefix>.events.catalog.asset.>`. */
  filterSubject: string;
  /** Applies one event in a transaction of its own; resolves once committed. */
  handle(event: BusEvent, position: EventPosition): Promise<unknown>;
  /**
   * The lane of an event (an entity, say). When given, events of one lane are applied in stream
   * order and those of different lanes concurrently (`concurrency` lanes at most); without it,
   * every event in stream order, one at a time.
   */
  laneOf?(event: BusEvent): string;
  /**
   * Applies the events of one lane that waited together (stream order) as one, committed at once;
   * when it throws they are applied one by one through `handle` (retries, dead letters).
   */
  handleMany?(events: Array<{ event: BusEvent; position: EventPosition }>): Promise<unknown>;
  /**
   * Applies the waiting events of several lanes (each in stream order) as one, committed at once;
   * when it throws, each lane is applied on its own (`handleMany`, then `handle`).
   */
  handleLanes?(lanes: Array<Array<{ event: BusEvent; position: EventPosition }>>): Promise<unknown>;
  /** Pacing of retries (default: 100 ms doubling to 5 s, with jitter). */
  retry?: BackoffOptions;
  metrics?: MetricsRegistry;
}

export interface EventConsumer {
  stop(): Promise<void>;
}

export const DEFAULT_MAX_ATTEMPTS = 5;

/** The variables of a service's durable consumer: `<name>_CONSUMER`, `_ACK_WAIT_MS`, `_MAX_ACK_PENDING`, `_MAX_ATTEMPTS`. */
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
  });
}

/** What handling one message needs. */
interface Follower {
  settings: EventConsumerSettings;
  log: Logger;
  maxAttempts: number;
  /** Failed attempts that are retried, by consumer and kind. */
  retries: Counter;
  park: (letter: DeadLetter) => Promise<void>;
}

/** A message given up on: what the dead letter says besides where it came from. */
interface GivenUp {
  kind: DeadLetterKind;
  reason: string;
  attempts: number;
}

/**
 * Follows events of the events stream with a durable pull consumer (every replica of a service
 * pulls from the same one, so each event goes to one of them):
 * - each message is handled in its own transaction and acked only after that commits; a failure
 *   is retried in place with backoff, keeping the message in progress, so this replica never
 *   overtakes it; on stop it is nak'ed and redelivered;
 * - a transient failure (Postgres or NATS away, decision 0053) is retried for as long as it lasts;
 *   a message the handler rejects (Postgres refuses its values, the handler throws on its shape)
 *   is parked in the dead-letter stream after `maxAttempts`, then terminated, and the consumer
 *   moves on; a message that is not an event is parked at once;
 * - handling must be idempotent (redeliveries, several replicas);
 * - a deleted stream or consumer is set up again.
 */
export function startEventConsumer(settings: EventConsumerSettings): EventConsumer {
  const { nc, subjects, durable } = settings;
  const log = settings.logger.child({ component: 'event-consumer', consumer: durable });
  const follower: Follower = {
    settings,
    log,
    maxAttempts: settings.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
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
 * session ends (nak'ed): transient failures are retried without end, rejections `maxAttempts` times.
 */
async function handleMessage(f: Follower, msg: JsMsg, stream: string, session: AbortSignal): Promise<void> {
  const event = decodeBusEvent(msg.data);
  if (!event) return giveUp(f, msg, session, { kind: 'malformed', reason: 'not an event of the events stream', attempts: 0 });
  const backoff = createBackoff(f.settings.retry);
  let rejected = 0;
  for (;;) {
    try {
      await f.settings.handle(event, { stream, seq: msg.seq });
      msg.ack();
      return;
    } catch (error) {
      if (session.aborted) return msg.nak();
      const kind = failureKind(error);
      if (kind === 'rejected') rejected += 1;
      if (rejected >= f.maxAttempts) {
        return giveUp(f, msg, session, { kind: 'rejected', reason: describeFailure(error), attempts: backoff.attempts + 1 });
      }
      f.retries.inc({ consumer: f.settings.durable, kind });
      const retryInMs = backoff.nextDelayMs();
      f.log.warn({ err: error, seq: msg.seq, type: event.type, failure: kind, retryInMs }, 'handling an event failed; retrying');
      msg.working();
      await sleep(retryInMs, session);
    }
  }
}

/** Parks the message (retrying while NATS does not take it), then terminates it. */
async function giveUp(f: Follower, msg: JsMsg, session: AbortSignal, what: GivenUp): Promise<void> {
  const backoff = createBackoff(f.settings.retry);
  for (;;) {
    try {
      await f.park({
        ...what,
        subject: msg.subject,
        stream: f.settings.subjects.eventsStream,
        streamSeq: msg.seq,
        consumer: f.settings.durable,
        data: msg.data,
      });
      msg.term(what.kind);
      return;
    } catch (error) {
      if (session.aborted) return msg.nak();
      const retryInMs = backoff.nextDelayMs();
      f.log.warn({ err: error, seq: msg.seq, retryInMs }, 'parking a message failed; retrying');
      msg.working();
      await sleep(retryInMs, session);
    }
  }
}

/**
 * Follows messages in lanes (`laneOf`): a lane's messages in stream order, at most `concurrency`
 * lanes applied at once. Messages keep being taken while every slot is busy (JetStream delivers at
 * most `maxAckPending` unacknowledged ones): each joins its lane's waiting messages, and a lane
 * waiting for a slot takes all of them at once (`handleMany`), so the busier the consumer the
 * fewer refreshes per message; with `handleLanes` a slot also takes up to `lanesPerBatch` lanes
 * queued behind it, applied as one (decision 0111). A lane gives its slot up after each batch and
 * queues again behind the lanes waiting, so none holds a slot for long. A redelivery of a message
 * still waiting takes its place. A message that is not an event has a lane of its own.
 */
async function followInLanes(
  f: Follower,
  laneOf: (event: BusEvent) => string,
  messages: AsyncIterable<JsMsg>,
  stream: string,
  session: AbortSignal,
): Promise<void> {
  const limit = Math.max(1, f.settings.concurrency ?? 1);
  /** Lanes with messages not yet applied (waiting for a slot, or in one). */
  const lanes = new Map<string, JsMsg[]>();
  /** Lanes waiting for a slot, first come first served. */
  const queued: string[] = [];
  let busy = 0;
  let allDone: (() => void) | null = null;
  const perBatch = f.settings.handleLanes ? Math.max(1, f.settings.lanesPerBatch ?? 1) : 1;
  const start = (key: string): void => {
    busy += 1;
    // With `handleLanes`, the slot also takes lanes queued behind this one.
    const keys = [key];
    while (keys.length < perBatch && queued.length > 0) keys.push(queued.shift()!);
    // Taken out at once: a message that arrives meanwhile queues its lane again after this batch.
    const batches = keys.map((k) => lanes.get(k)!.splice(0));
    void handleLaneBatches(f, batches, stream, session)
      .catch((error: unknown) => f.log.warn({ err: error }, 'a lane failed'))
      .finally(() => {
        busy -= 1;
        for (const k of keys) {
          if (lanes.get(k)!.length > 0) queued.push(k);
          else lanes.delete(k);
        }
        const next = queued.shift();
        if (next !== undefined) start(next);
        else if (lanes.size === 0) allDone?.();
      });
  };
  for await (const msg of messages) {
    if (session.aborted) {
      msg.nak();
      continue;
    }
    const event = decodeBusEvent(msg.data);
    const key = event ? `e:${laneOf(event)}` : `m:${msg.seq}`;
    const waiting = lanes.get(key);
    if (waiting) {
      // The lane is queued or in a slot: it takes this message with its next batch. A message
      // redelivered while it waited (its ack wait ran out) replaces its earlier delivery, so a
      // long wait never holds two copies of one message.
      const earlier = waiting.findIndex((m) => m.seq === msg.seq);
      if (earlier === -1) waiting.push(msg);
      else waiting[earlier] = msg;
      continue;
    }
    lanes.set(key, [msg]);
    if (busy < limit) start(key);
    else queued.push(key);
  }
  // The messages ended (session over): the lanes left finish (nak'ing what a stopped session holds).
  if (lanes.size > 0) await new Promise<void>((resolve) => (allDone = resolve));
}

/**
 * Applies the waiting messages of the lanes a slot took: those of several lanes together when
 * `handleLanes` takes them, else (or when it throws) each lane on its own, the lanes concurrently
 * (a lane retrying an event holds only itself). A lane holding a message that is not an event is
 * always applied on its own.
 */
async function handleLaneBatches(f: Follower, batches: JsMsg[][], stream: string, session: AbortSignal): Promise<void> {
  const handleLanes = f.settings.handleLanes;
  if (!handleLanes || batches.length === 1 || session.aborted) {
    await Promise.all(batches.map((batch) => handleLaneBatch(f, batch, stream, session)));
    return;
  }
  const decoded = batches.map((batch) => batch.map((msg) => ({ msg, event: decodeBusEvent(msg.data) })));
  const events = decoded.filter((lane) => lane.every((m) => m.event !== null));
  const alone = decoded.filter((lane) => !lane.every((m) => m.event !== null)).map((lane) => lane.map((m) => m.msg));
  if (events.length > 0) {
    try {
      await handleLanes(
        events.map((lane) => lane.map(({ msg, event }) => ({ event: event as BusEvent, position: { stream, seq: msg.seq } }))),
      );
      for (const lane of events) for (const { msg } of lane) msg.ack();
    } catch (error) {
      f.log.warn({ err: error, lanes: events.length }, 'applying lanes together failed; applying each on its own');
      alone.push(...events.map((lane) => lane.map((m) => m.msg)));
    }
  }
  await Promise.all(alone.map((batch) => handleLaneBatch(f, batch, stream, session)));
}

/** Applies a lane's waiting messages: together when `handleMany` takes them, else (or when it throws) one by one. */
async function handleLaneBatch(f: Follower, batch: JsMsg[], stream: string, session: AbortSignal): Promise<void> {
  if (session.aborted) {
    for (const msg of batch) msg.nak();
    return;
  }
  const events = batch.map((msg) => ({ msg, event: decodeBusEvent(msg.data) }));
  const handleMany = f.settings.handleMany;
  if (handleMany && batch.length > 1 && events.every((e) => e.event !== null)) {
    try {
      await handleMany(events.map(({ msg, event }) => ({ event: event as BusEvent, position: { stream, seq: msg.seq } })));
      for (const msg of batch) msg.ack();
      return;
    } catch (error) {
      f.log.warn({ err: error, count: batch.length }, 'applying events together failed; applying them one by one');
    }
  }
  for (const msg of batch) await handleMessage(f, msg, stream, session);
}

/**
 * One session of following: sets up the stream and the durable consumer, then handles messages in
 * order until the consumer is gone, the connection fails or `stopping` aborts.
 */
async function followOnce(f: Follower, stopping: AbortSignal): Promise<void> {
  const { settings, log } = f;
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
    });
    const consumer = await jetstream(nc).consumers.get(subjects.eventsStream, durable);
    const messages = await consumer.consume({ max_messages: Math.min(100, settings.maxAckPending) });
    const close = (): void => void messages.close().catch(() => undefined);
    // Stopped while setting up: an aborted signal never fires again.
    if (ended.signal.aborted) close();
    else ended.signal.addEventListener('abort', close, { once: true });
    onConsumerGone(messages, log, () => ended.abort());
    log.info({ filterSubject: settings.filterSubject }, 'following events');
    if (settings.laneOf) {
      await followInLanes(f, settings.laneOf, messages, info.created, ended.signal);
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
