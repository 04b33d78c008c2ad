import { jetstream, RetentionPolicy, StorageType, DiscardPolicy, type StreamInfo } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../observability/logger.js';
import { platformCounter, processMetrics, type MetricsRegistry } from '../observability/metrics.js';
import { ensureStream, isStreamMissing } from './jetstream.js';
import { headerBytes, maxPayload } from './payload-size.js';
import type { Subjects } from './subjects.js';

/**
 * The dead-letter stream (decision 0053): where a consumer parks a message it gave up on, so one
 * bad message never halts a pipeline and nothing is lost without a trace. `<PREFIX>_DEAD_LETTERS`
 * on `<prefix>.dead-letters.<consumer>`; each message is the original payload with headers that
 * say where it came from and why it was parked. Bounded: 30 days, 100,000 messages, 256 MiB,
 * the oldest dropped first.
 */
const DEAD_LETTER_LIMITS = {
  maxAgeMs: 30 * 24 * 3600_000,
  maxMsgs: 100_000,
  maxBytes: 256 * 1024 * 1024,
  duplicateWindowMs: 10 * 60_000,
} as const;

/** Headers of a dead letter. */
export const DEAD_LETTER_HEADERS = {
  subject: 'Catalog-Dead-Letter-Subject',
  stream: 'Catalog-Dead-Letter-Stream',
  streamSeq: 'Catalog-Dead-Letter-Stream-Seq',
  consumer: 'Catalog-Dead-Letter-Consumer',
  reason: 'Catalog-Dead-Letter-Reason',
  attempts: 'Catalog-Dead-Letter-Attempts',
  /** Present when the payload was cut to fit `max_payload` with the headers: the original length. */
  truncatedFrom: 'Catalog-Dead-Letter-Truncated-From',
} as const;

/**
 * Why a message was parked, in a word (the metric's `reason` label): not an event, refused by its
 * handler, too large to publish, or failing transiently while other messages were applied
 * (decision 0114).
 */
export type DeadLetterKind = 'malformed' | 'rejected' | 'too_large' | 'transient';

export interface DeadLetter {
  kind: DeadLetterKind;
  /** The subject the message was published (or, from an outbox, was to be published) on. */
  subject: string;
  /** The stream it came from (or the outbox table, `<schema>.outbox`), and its sequence there. */
  stream: string;
  streamSeq: number;
  /** The durable consumer that gave up on it. */
  consumer: string;
  /** Why, in one line (it becomes a header: no newline, bounded). */
  reason: string;
  attempts: number;
  data: Uint8Array;
}

const MS_TO_NS = 1_000_000;
/** Room for the headers JetStream adds to a publish (`Nats-Msg-Id`). */
const PUBLISH_HEADER_ROOM = 256;

/**
 * Creates the dead-letter stream, or brings an existing one to the expected limits and the
 * connection's replica count (`ensureStream`); idempotent.
 */
export async function ensureDeadLetterStream(nc: NatsConnection, subjects: Subjects): Promise<StreamInfo> {
  const wanted = {
    subjects: [subjects.deadLettersWildcard],
    max_age: DEAD_LETTER_LIMITS.maxAgeMs * MS_TO_NS,
    max_msgs: DEAD_LETTER_LIMITS.maxMsgs,
    max_bytes: DEAD_LETTER_LIMITS.maxBytes,
    duplicate_window: DEAD_LETTER_LIMITS.duplicateWindowMs * MS_TO_NS,
    discard: DiscardPolicy.Old,
  };
  return ensureStream(nc, {
    name: subjects.deadLettersStream,
    wanted,
    created: { storage: StorageType.File, retention: RetentionPolicy.Limits },
    matches: (c) =>
      c.max_age === wanted.max_age &&
      c.max_msgs === wanted.max_msgs &&
      c.max_bytes === wanted.max_bytes &&
      c.subjects?.[0] === wanted.subjects[0],
  });
}

/**
 * Parks `letter` in the dead-letter stream and resolves once JetStream stored it. Parking the same
 * message twice (a consumer that crashed after parking and before acking) stores it once: its
 * `Nats-Msg-Id` is its stream, sequence and consumer. Rejects when NATS does not take it (the
 * caller keeps the message and tries again).
 */
async function parkDeadLetter(nc: NatsConnection, subjects: Subjects, letter: DeadLetter): Promise<void> {
  const h = natsHeaders();
  h.set(DEAD_LETTER_HEADERS.subject, letter.subject);
  h.set(DEAD_LETTER_HEADERS.stream, letter.stream);
  h.set(DEAD_LETTER_HEADERS.streamSeq, String(letter.streamSeq));
  h.set(DEAD_LETTER_HEADERS.consumer, letter.consumer);
  h.set(DEAD_LETTER_HEADERS.reason, oneLine(`${letter.kind}: ${letter.reason}`));
  h.set(DEAD_LETTER_HEADERS.attempts, String(letter.attempts));
  let data = letter.data;
  const room = maxPayload(nc) - headerBytes(h) - PUBLISH_HEADER_ROOM;
  if (data.length > room) {
    h.set(DEAD_LETTER_HEADERS.truncatedFrom, String(data.length));
    data = data.subarray(0, Math.max(room - 64, 0));
  }
  await jetstream(nc).publish(subjects.deadLetters(letter.consumer), data, {
    msgID: `${letter.stream}:${letter.streamSeq}:${letter.consumer}`,
    headers: h,
    timeout: 5_000,
  });
}

/** A header value: printable, one line, at most 500 characters. */
function oneLine(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > 500 ? `${line.slice(0, 497)}...` : line || 'unknown';
}

export interface DeadLetterSinkSettings {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  metrics?: MetricsRegistry;
}

/**
 * What a consumer parks with: creates the dead-letter stream on first use (again if it was
 * deleted), parks, counts (`catalog_dead_letters_total{consumer, reason}`) and logs an error. Rejects
 * when the letter could not be stored; the caller keeps the message and tries again.
 */
export function deadLetterSink(settings: DeadLetterSinkSettings): (letter: DeadLetter) => Promise<void> {
  const parked = platformCounter(settings.metrics ?? processMetrics, 'deadLetters');
  let streamReady = false;
  return async (letter) => {
    try {
      if (!streamReady) {
        await ensureDeadLetterStream(settings.nc, settings.subjects);
        streamReady = true;
      }
      await parkDeadLetter(settings.nc, settings.subjects, letter);
    } catch (error) {
      if (isStreamMissing(error)) streamReady = false;
      throw error;
    }
    parked.inc({ consumer: letter.consumer, reason: letter.kind });
    settings.logger.error(
      {
        consumer: letter.consumer,
        subject: letter.subject,
        streamSeq: letter.streamSeq,
        kind: letter.kind,
        reason: letter.reason,
        attempts: letter.attempts,
      },
      'parked a message in the dead-letter stream',
    );
  };
}
