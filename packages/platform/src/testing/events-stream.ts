import { jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import type { NatsConnection } from '../bus/connect.js';
import { encodeBusEvent, type BusEvent } from '../bus/event-message.js';
import type { Subjects } from '../bus/subjects.js';
import { eventually } from './index.js';

/** Publishes an event (or any bytes) on the events stream as a relay would; returns its stream sequence. */
export async function publishEvent(nc: NatsConnection, subjects: Subjects, event: BusEvent | { type: string; bytes: Uint8Array }): Promise<number> {
  const bytes = 'bytes' in event ? event.bytes : encodeBusEvent(event);
  return (await jetstream(nc).publish(subjects.events('catalog', event.type), bytes)).seq;
}

/** Resolves once durable consumer `durable` has acked (or terminated) every message up to stream sequence `seq`. */
export async function untilConsumerSettled(nc: NatsConnection, subjects: Subjects, durable: string, seq: number, timeoutMs = 20_000): Promise<ConsumerInfo> {
  const jsm = await jetstreamManager(nc);
  return eventually(async () => {
    const info = await jsm.consumers.info(subjects.eventsStream, durable);
    return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 ? info : undefined;
  }, timeoutMs);
}
