import type { JsMsg } from '@nats-io/jetstream';
import { createBackoff } from '../support/backoff.js';
import type { Logger } from '../observability/logger.js';
import type { Counter } from '../observability/metrics.js';
import { sleep } from '../support/sleep.js';
import type { AttemptBook } from './attempt-book.js';
import type { DeadLetter, DeadLetterKind } from './dead-letters.js';
import type { EventConsumerSettings } from './event-consumer-settings.js';
import { decodeBusEvent } from './event-message.js';
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
 * the wait before the next attempt: the caller decides where to wait (decision 0114: a `follow`'s
 * lane waits without its slot).
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
