import { decodeBusEvent, envelopeOf, type BusEvent, type DeadLetterKind } from '@catalog/platform';

/**
 * Largest event the feed stores: the JSON of its public envelope. Events hold ids and small facts
 * (decision 0006); one larger than this could never be served in a feed page of a bus reply
 * (decision 0052), so it is parked instead (decision 0053).
 */
export const MAX_FEED_EVENT_BYTES = 64 * 1024;

/** One message of the events stream as the feed writer applies it. */
export interface StreamEntry {
  seq: number;
  subject: string;
  data: Uint8Array;
  /** The event with the body the feed stores, or why there is none. */
  content: { event: BusEvent; body: string } | { problem: DeadLetterKind; reason: string };
}

/** Reads a message: a well-formed event the feed can store, or a problem that parks it at once. */
export function entryOf(seq: number, subject: string, data: Uint8Array): StreamEntry {
  const event = decodeBusEvent(data);
  if (!event) return { seq, subject, data, content: { problem: 'malformed', reason: 'not an event of the events stream' } };
  const body = JSON.stringify(envelopeOf(event));
  if (Buffer.byteLength(body) > MAX_FEED_EVENT_BYTES) {
    return {
      seq,
      subject,
      data,
      content: { problem: 'too_large', reason: `the event's envelope is larger than ${MAX_FEED_EVENT_BYTES} bytes` },
    };
  }
  return { seq, subject, data, content: { event, body } };
}
