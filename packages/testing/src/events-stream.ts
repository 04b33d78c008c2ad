import { jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { encodeBusEvent, type BusEvent, type NatsConnection, type Subjects } from '@catalog/platform';
import { eventually } from './eventually.js';

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
