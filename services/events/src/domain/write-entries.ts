import {
  createBackoff,
  describeFailure,
  failureKind,
  sleep,
  type BackoffOptions,
  type Counter,
  type DeadLetter,
  type Kysely,
  type Logger,
} from '@catalog/platform';
import { loadPosition, PositionMovedError, storeEvents, type StoredEvent, type StreamPosition } from '../persistence/stream-position.js';
import type { EventsDb } from '../persistence/tables.js';
import type { StreamEntry } from './stream-entry.js';

/** What storing entries needs: the feed, where to park, and how hard to try. */
export interface EntryWriter {
  db: Kysely<EventsDb>;
  /** The writer's durable consumer: the key of its position, and the dead letters' consumer. */
  consumer: string;
  stream: string;
  park(letter: DeadLetter): Promise<void>;
  /** Failed attempts that are retried, by `kind` (transient or rejected). */
  retries: Counter;
  log: Logger;
  /** Attempts at an event Postgres refuses on its own before it is parked. */
  maxAttempts: number;
  retry?: BackoffOptions;
  signal: AbortSignal;
}

/**
 * The writer's position in this incarnation of the events stream (`streamCreated`): created for a
 * new consumer, restarted at 0 (`reset`) when the stream is new.
 */
export function readPosition(db: Kysely<EventsDb>, consumer: string, streamCreated: string): Promise<StreamPosition & { reset: boolean }> {
  return loadPosition(db, consumer, streamCreated);
}

/** Another writer moved the position since this one read it: read it again and retry. */
export function positionMoved(error: unknown): boolean {
  return error instanceof PositionMovedError;
}

/**
 * Stores `entries` (fresh, in stream order, no sequence missing but those the stream dropped)
 * after `position`, and returns the position after them. Decision 0053:
 * - an entry that is no storable event (malformed, too large) is parked first, then passed over;
 * - the rest go in one transaction with the position (`storeEvents`);
 * - if Postgres refuses that batch for its data (`failureKind` 'rejected'), the entries are stored
 *   one by one, in order, each with the position: those that fail alone are retried
 *   `maxAttempts` times, then parked and passed over; the others are stored. So the feed keeps the
 *   stream's order and the position logic, and a poison message costs only itself;
 * - a transient failure (or `PositionMovedError`) is thrown as it is, parking nothing: the caller
 *   retries from the position stored, which a partial isolation may have moved (the position
 *   check notices, the caller reads it again).
 * `parked` holds the sequences already parked in this session, so a retried batch does not park
 * (and count) them again.
 */
export async function writeEntries(
  w: EntryWriter,
  position: StreamPosition,
  entries: StreamEntry[],
  parked: Set<number>,
): Promise<StreamPosition> {
  if (entries.length === 0) return position;
  for (const entry of entries) {
    if ('problem' in entry.content && !parked.has(entry.seq)) {
      await w.park(letter(w, entry, entry.content.problem, entry.content.reason, 0));
      parked.add(entry.seq);
    }
  }
  const toSeq = entries[entries.length - 1]!.seq;
  const storable = entries.filter((entry) => !parked.has(entry.seq));
  try {
    await storeEvents(w.db, w.consumer, position, toSeq, storable.map(stored));
    return { streamCreated: position.streamCreated, lastSeq: toSeq };
  } catch (error) {
    if (error instanceof PositionMovedError || failureKind(error) === 'transient') throw error;
    w.log.warn(
      { err: error, events: storable.length, fromSeq: position.lastSeq + 1, toSeq },
      'Postgres refused a batch; storing its events one by one',
    );
  }
  let current = position;
  for (const entry of storable) current = await storeAlone(w, current, entry, parked);
  if (current.lastSeq < toSeq) {
    await storeEvents(w.db, w.consumer, current, toSeq, []);
    current = { streamCreated: current.streamCreated, lastSeq: toSeq };
  }
  return current;
}

/** Stores one entry with the position; parks it after `maxAttempts` refusals (the position stays). */
async function storeAlone(w: EntryWriter, position: StreamPosition, entry: StreamEntry, parked: Set<number>): Promise<StreamPosition> {
  const backoff = createBackoff(w.retry);
  for (;;) {
    if (w.signal.aborted) throw new Error('the feed writer is stopping');
    try {
      await storeEvents(w.db, w.consumer, position, entry.seq, [stored(entry)]);
      return { streamCreated: position.streamCreated, lastSeq: entry.seq };
    } catch (error) {
      if (error instanceof PositionMovedError || failureKind(error) === 'transient') throw error;
      const attempts = backoff.attempts + 1;
      if (attempts >= w.maxAttempts) {
        await w.park(letter(w, entry, 'rejected', describeFailure(error), attempts));
        parked.add(entry.seq);
        return position;
      }
      w.retries.inc({ consumer: w.consumer, kind: 'rejected' });
      const retryInMs = backoff.nextDelayMs();
      w.log.warn({ err: error, seq: entry.seq, attempts, retryInMs }, 'Postgres refused an event; retrying it');
      await sleep(retryInMs, w.signal);
    }
  }
}

function stored(entry: StreamEntry): StoredEvent {
  if ('problem' in entry.content) throw new Error(`entry ${entry.seq} holds no event`);
  return entry.content;
}

function letter(w: EntryWriter, entry: StreamEntry, kind: DeadLetter['kind'], reason: string, attempts: number): DeadLetter {
  return { kind, reason, attempts, subject: entry.subject, stream: w.stream, streamSeq: entry.seq, consumer: w.consumer, data: entry.data };
}
