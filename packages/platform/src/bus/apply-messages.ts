import type { JsMsg } from '@nats-io/jetstream';
import { createBackoff } from '../backoff.js';
import type { Logger } from '../logger.js';
import type { Counter } from '../metrics.js';
import { sleep } from '../sleep.js';
import type { AttemptBook } from './attempt-book.js';
import type { DeadLetter, DeadLetterKind } from './dead-letters.js';
import type { EventConsumerSettings } from './event-consumer-settings.js';
import { decodeBusEvent, type BusEvent } from './event-message.js';
import { describeFailure, failureKind } from './failure-kind.js';

/** What handling messages needs: the consumer's settings and the failed attempts of its session. */
export interface Follower {
  settings: EventConsumerSettings;
  log: Logger;
  /** Failed attempts that are retried, by consumer and kind. */
  retries: Counter;
  park: (letter: DeadLetter) => Promise<void>;
  book: AttemptBook;
}

/** A message given up on: what the dead letter says besides where it came from. */
interface GivenUp {
  kind: DeadLetterKind;
  reason: string;
  attempts: number;
}

/**
 * One attempt at a message: applied and acked, or given up on (parked and terminated), or handed
 * back when the session ended (nak'ed); each returns null. A failure that is to be retried returns
 * the wait before the next attempt: the caller decides where to wait (decision 0114: a lane waits
 * without its slot).
 */
export async function attemptMessage(f: Follower, msg: JsMsg, stream: string, session: AbortSignal): Promise<number | null> {
  if (session.aborted) return (void msg.nak(), null);
  const event = decodeBusEvent(msg.data);
  if (!event) {
    await giveUp(f, msg, session, { kind: 'malformed', reason: 'not an event of the events stream', attempts: 0 });
    return null;
  }
  try {
    await f.settings.handle(event, { stream, seq: msg.seq });
    msg.ack();
    f.book.applied(msg.seq);
    return null;
  } catch (error) {
    if (session.aborted) return (void msg.nak(), null);
    const kind = failureKind(error);
    const next = f.book.failed(msg.seq, kind);
    if (next.park !== null) {
      await giveUp(f, msg, session, { kind: next.park, reason: describeFailure(error), attempts: next.attempts });
      return null;
    }
    f.retries.inc({ consumer: f.settings.durable, kind });
    const log = { err: error, seq: msg.seq, type: event.type, tenantId: event.tenantId, failure: kind, attempts: next.attempts };
    f.log.warn({ ...log, retryInMs: next.retryInMs }, 'handling an event failed; retrying');
    return next.retryInMs;
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
      f.book.forget(msg.seq);
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

/** What became of a lane's messages in a slot: all settled (null), or these to try again after `retryInMs`. */
export type LaneResult = { remaining: JsMsg[]; retryInMs: number } | null;

/**
 * Applies the waiting messages of the lanes a slot took: those of several lanes together when
 * `handleLanes` takes them, else (or when it throws) each lane on its own, the lanes concurrently.
 * A lane holding a message that is not an event is always applied on its own. `retrying`: the
 * lane failed before and goes straight to its messages one by one.
 */
export async function handleLaneBatches(
  f: Follower,
  batches: JsMsg[][],
  stream: string,
  session: AbortSignal,
  retrying: boolean,
): Promise<LaneResult[]> {
  const handleLanes = f.settings.handleLanes;
  if (!handleLanes || batches.length === 1 || session.aborted) {
    return Promise.all(batches.map((batch) => handleLaneBatch(f, batch, stream, session, retrying)));
  }
  const decoded = batches.map((batch) => batch.map((msg) => ({ msg, event: decodeBusEvent(msg.data) })));
  const together = decoded.map((lane) => lane.every((m) => m.event !== null));
  if (together.some(Boolean)) {
    const events = decoded.filter((_, k) => together[k]);
    try {
      await handleLanes(
        events.map((lane) => lane.map(({ msg, event }) => ({ event: event as BusEvent, position: { stream, seq: msg.seq } }))),
      );
      for (const lane of events) for (const { msg } of lane) settleApplied(f, msg);
      return Promise.all(batches.map((batch, k) => (together[k] ? null : handleLaneBatch(f, batch, stream, session, retrying))));
    } catch (error) {
      f.log.warn({ err: error, lanes: events.length }, 'applying lanes together failed; applying each on its own');
    }
  }
  return Promise.all(batches.map((batch) => handleLaneBatch(f, batch, stream, session, retrying)));
}

function settleApplied(f: Follower, msg: JsMsg): void {
  msg.ack();
  f.book.applied(msg.seq);
}

/**
 * Applies a lane's waiting messages: together when `handleMany` takes them, else (or when it
 * throws, or the lane is retrying) one by one until one fails: that one and those after it are
 * the lane's to try again.
 */
async function handleLaneBatch(f: Follower, batch: JsMsg[], stream: string, session: AbortSignal, retrying: boolean): Promise<LaneResult> {
  if (session.aborted) {
    for (const msg of batch) msg.nak();
    return null;
  }
  const events = batch.map((msg) => ({ msg, event: decodeBusEvent(msg.data) }));
  const handleMany = f.settings.handleMany;
  if (handleMany && !retrying && batch.length > 1 && events.every((e) => e.event !== null)) {
    try {
      await handleMany(events.map(({ msg, event }) => ({ event: event as BusEvent, position: { stream, seq: msg.seq } })));
      for (const msg of batch) settleApplied(f, msg);
      return null;
    } catch (error) {
      f.log.warn({ err: error, count: batch.length }, 'applying events together failed; applying them one by one');
    }
  }
  for (const [k, msg] of batch.entries()) {
    const retryInMs = await attemptMessage(f, msg, stream, session);
    if (retryInMs !== null) return { remaining: batch.slice(k), retryInMs };
  }
  return null;
}
