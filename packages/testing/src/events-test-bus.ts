import { jetstreamManager } from '@nats-io/jetstream';
import { ensureEventsStream, subjectsFor, type NatsConnection, type Subjects } from '@catalog/platform';
import { uniqueNatsPrefix } from './infrastructure.js';
import { testBus } from './service-environment.js';

/** A test's connection and its own events stream (a fresh NATS prefix). */
export interface EventsTestBus {
  nc: NatsConnection;
  subjects: Subjects;
}

/** Connects `name` to the test NATS and makes the events stream of a fresh prefix starting with `prefix`. */
export async function openEventsTestBus(name: string, prefix: string): Promise<EventsTestBus> {
  const nc = await testBus(name);
  const subjects = subjectsFor(uniqueNatsPrefix(prefix));
  await ensureEventsStream(nc, subjects);
  return { nc, subjects };
}

/** Deletes the test's events and dead-letter streams, then drains its connection. */
export async function closeEventsTestBus({ nc, subjects }: EventsTestBus): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
  await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
  await nc.drain();
}

/**
 * The settings the consumer tests share: `durable` over the test's `catalog` `thing.*` events, three
 * attempts a message, retries 10–50 ms apart and a generous ack wait.
 */
export function thingConsumerSettings(subjects: Subjects, durable: string) {
  return {
    subjects,
    durable,
    ackWaitMs: 30_000,
    maxAckPending: 100,
    maxAttempts: 3,
    retry: { minMs: 10, maxMs: 50 },
    filterSubject: subjects.events('catalog', 'thing.>'),
  };
}
