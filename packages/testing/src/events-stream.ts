import { jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import {
  DEAD_LETTER_HEADERS,
  encodeBusEvent,
  isJetStreamApiError,
  newId,
  type BusEvent,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import { eventually } from './eventually.js';

/** A well-formed event of the events stream, for a new tenant and resource unless overridden. */
export function testBusEvent(overrides: Partial<BusEvent> = {}): BusEvent {
  return {
    id: newId(),
    tenantId: newId(),
    type: 'thing.happened',
    occurredAt: new Date().toISOString(),
    product: 'catalog',
    resourceKind: 'thing',
    resourceId: newId(),
    dmrn: null,
    sourceSystem: 'test',
    batchId: newId(),
    schemaVersion: 1,
    data: {},
    ...overrides,
  };
}

/** Publishes an event (or any bytes) on the events stream as a relay would; returns its stream sequence. */
export async function publishEvent(
  nc: NatsConnection,
  subjects: Subjects,
  event: BusEvent | { type: string; bytes: Uint8Array },
): Promise<number> {
  const bytes = 'bytes' in event ? event.bytes : encodeBusEvent(event);
  return (await jetstream(nc).publish(subjects.events('catalog', event.type), bytes)).seq;
}

/** Resolves once durable consumer `durable` has acked (or terminated) every message up to stream sequence `seq`. */
export async function untilConsumerSettled(
  nc: NatsConnection,
  subjects: Subjects,
  durable: string,
  seq: number,
  timeoutMs = 20_000,
): Promise<ConsumerInfo> {
  const jsm = await jetstreamManager(nc);
  return eventually(async () => {
    const info = await jsm.consumers.info(subjects.eventsStream, durable);
    return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 ? info : undefined;
  }, timeoutMs);
}

/** A message of the dead-letter stream, as a test reads it. */
export interface ParkedMessage {
  subject: string;
  streamSeq: number;
  consumer: string;
  reason: string;
  attempts: number;
  data: Uint8Array;
}

/** Every message in the dead-letter stream of `subjects` (none when it does not exist). */
export async function readDeadLetters(nc: NatsConnection, subjects: Subjects): Promise<ParkedMessage[]> {
  const jsm = await jetstreamManager(nc);
  let info;
  try {
    info = await jsm.streams.info(subjects.deadLettersStream);
  } catch (error) {
    if (isJetStreamApiError(error, 10059)) return [];
    throw error;
  }
  const parked: ParkedMessage[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq += 1) {
    const m = await jsm.streams.getMessage(subjects.deadLettersStream, { seq });
    if (!m) continue;
    const h = (name: string): string => m.header.get(name);
    parked.push({
      subject: h(DEAD_LETTER_HEADERS.subject),
      streamSeq: Number(h(DEAD_LETTER_HEADERS.streamSeq)),
      consumer: h(DEAD_LETTER_HEADERS.consumer),
      reason: h(DEAD_LETTER_HEADERS.reason),
      attempts: Number(h(DEAD_LETTER_HEADERS.attempts)),
      data: m.data,
    });
  }
  return parked;
}

/**
 * Resolves once the bus is quiet: `unpublished()` (the outbox rows of the services under test not
 * yet relayed) is 0, and every durable consumer of the events stream has acked every message it
 * was given, twice in a row with the stream's last sequence unchanged (a consumer that records an
 * event of its own in answer starts another round). What a test waits for before asserting that
 * something did NOT happen, instead of sleeping a while.
 */
export async function untilBusSettled(
  nc: NatsConnection,
  subjects: Subjects,
  unpublished: () => Promise<number>,
  timeoutMs = 60_000,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  let lastSeq = -1;
  await eventually(async () => {
    if ((await unpublished()) > 0) return undefined;
    const seq = (await jsm.streams.info(subjects.eventsStream)).state.last_seq;
    const consumers = await jsm.consumers.list(subjects.eventsStream).next();
    const busy = consumers.some((info) => info.num_pending > 0 || info.num_ack_pending > 0);
    const quiet = !busy && seq === lastSeq;
    lastSeq = busy ? -1 : seq;
    return quiet ? true : undefined;
  }, timeoutMs);
}
