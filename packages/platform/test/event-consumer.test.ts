import { jetstreamManager } from '@nats-io/jetstream';
import {
  startEventConsumer,
  type BusEvent,
  type EventConsumer,
  type EventConsumerSettings,
  type EventPosition,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import {
  closeEventsTestBus,
  eventually,
  openEventsTestBus,
  publishEvent,
  readDeadLetters,
  testBusEvent,
  testLogger,
  untilConsumerSettled,
} from '@catalog/testing';

const logger = testLogger('event-consumer');
const DURABLE = 'test-things';

interface Handled {
  event: BusEvent;
  position: EventPosition;
}

const event = (type = 'thing.happened'): BusEvent => testBusEvent({ type });

/** What a handler throws while Postgres is down: a transient failure, retried without end. */
const databaseAway = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('durable event consumer', () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  const consumers: EventConsumer[] = [];

  beforeEach(async () => {
    ({ nc, subjects } = await openEventsTestBus('event-consumer-test', 'consumer'));
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    await closeEventsTestBus({ nc, subjects });
  });

  function follow(
    handle: (event: BusEvent, position: EventPosition) => Promise<unknown>,
    more: Partial<EventConsumerSettings> = {},
  ): EventConsumer {
    const consumer = startEventConsumer({
      nc,
      subjects,
      logger,
      durable: DURABLE,
      ackWaitMs: 30_000,
      maxAckPending: 100,
      filterSubject: subjects.events('catalog', 'thing.>'),
      handle,
      ...more,
    });
    consumers.push(consumer);
    return consumer;
  }

  const publish = (e: BusEvent | { type: string; bytes: Uint8Array }): Promise<number> => publishEvent(nc, subjects, e);
  const settled = (seq: number) => untilConsumerSettled(nc, subjects, DURABLE, seq);

  test('handles events in order and acks each after it is handled; a failure is retried in place; non-events are parked', async () => {
    const handled: Handled[] = [];
    const attempts = new Map<string, number>();
    const [first, flaky, last] = [event(), event(), event()];
    follow(async (e, position) => {
      const n = (attempts.get(e.id) ?? 0) + 1;
      attempts.set(e.id, n);
      if (e.id === flaky.id && n < 3) throw databaseAway();
      handled.push({ event: e, position });
    });
    await publish(first);
    const garbage = await publish({ type: 'thing.happened', bytes: new TextEncoder().encode('not json') });
    await publish(flaky);
    await publish(event('other.happened')); // outside the filter
    const lastSeq = await publish(last);

    await settled(lastSeq);
    expect(handled.map((h) => h.event.id)).toEqual([first.id, flaky.id, last.id]);
    expect(attempts.get(flaky.id)).toBe(3);
    const { created } = await (await jetstreamManager(nc)).streams.info(subjects.eventsStream);
    expect(handled.map((h) => h.position)).toEqual([
      { stream: created, seq: garbage - 1 },
      { stream: created, seq: garbage + 1 },
      { stream: created, seq: lastSeq },
    ]);
    expect(handled[0]!.event).toEqual(first);
  });

  test('a deleted consumer or stream is set up again, and following goes on', async () => {
    const handled: Handled[] = [];
    follow(async (e, position) => void handled.push({ event: e, position }));
    const jsm = await jetstreamManager(nc);
    const first = event();
    await settled(await publish(first));

    await jsm.consumers.delete(subjects.eventsStream, DURABLE);
    const second = event();
    await publish(second);
    await eventually(async () => (handled.some((h) => h.event.id === second.id) ? true : undefined), 20_000);

    await jsm.streams.delete(subjects.eventsStream);
    // Published once the consumer has made the stream again (a publish to no stream has no responders).
    const third = event();
    await eventually(async () => publish(third).catch(() => undefined), 20_000);
    const handledThird = await eventually(async () => handled.find((h) => h.event.id === third.id), 20_000);
    expect(handledThird.position.stream).not.toBe(handled[0]!.position.stream);
  });

  test('stopping while it sets up ends at once', async () => {
    const consumer = follow(async () => undefined);
    const stopped = Date.now();
    await consumer.stop();
    expect(Date.now() - stopped).toBeLessThan(5_000);
  });

  test('stopping hands the message in progress back: the next consumer handles it', async () => {
    let failing = 0;
    const stuck = follow(async () => {
      failing += 1;
      throw databaseAway();
    });
    const e = event();
    await publish(e);
    await eventually(async () => (failing > 0 ? true : undefined));
    await stuck.stop();

    const handled: string[] = [];
    follow(async (next) => void handled.push(next.id));
    await eventually(async () => (handled.includes(e.id) ? true : undefined), 20_000);
  });

  // A `follow` of its own (the library's lanes, say) takes each session's messages and settles them through it.
  test('a follow of its own settles each message through the session: an attempt goes through handle and its dead letters, applied acknowledges', async () => {
    const [taken, good, bad] = [event(), event(), event()];
    for (const e of [taken, good, bad]) await publish(e);
    const handled: string[] = [];
    let received = 0;
    follow(
      async (e) => {
        if (e.id === bad.id) throw new TypeError('cannot apply this event');
        handled.push(e.id);
      },
      {
        maxAttempts: 2,
        retry: { minMs: 10, maxMs: 50 },
        follow: async (session) => {
          for await (const msg of session.messages) {
            received += 1;
            // The first is applied by other means (with others, say): acknowledged, never handled.
            if (received === 1) session.applied(msg);
            else while ((await session.attempt(msg)) !== null);
          }
        },
      },
    );

    const parked = await eventually(async () => {
      const letters = await readDeadLetters(nc, subjects);
      return letters.length > 0 ? letters : undefined;
    }, 20_000);
    expect(JSON.parse(new TextDecoder().decode(parked[0]!.data)).id).toBe(bad.id);
    expect(parked[0]).toMatchObject({ consumer: DURABLE, attempts: 2 });
    // Every message was settled: nothing comes back.
    const last = event();
    await settled(await publish(last));
    expect(handled).toEqual([good.id, last.id]);
  });
});
