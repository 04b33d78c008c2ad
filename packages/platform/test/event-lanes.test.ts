import { jetstreamManager } from '@nats-io/jetstream';
import {
  ensureEventsStream,
  startEventConsumer,
  subjectsFor,
  type BusEvent,
  type EventConsumer,
  type EventPosition,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import { eventually, publishEvent, readDeadLetters, testBus, testBusEvent, testLogger, uniqueNatsPrefix } from '@catalog/testing';

/** The durable consumer in lanes (`laneOf`, `concurrency`, `handleMany`): order per lane, lanes at once, waiting events together. */
const logger = testLogger('event-lanes');
const DURABLE = 'test-lanes';

type Applied = Array<{ entity: string; n: number; seq: number }>;

const thing = (entity: string, n: number): BusEvent => testBusEvent({ data: { entity, n } });
const entityOf = (e: BusEvent): string => String(e.data.entity);

describe('event consumer in lanes', () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  const consumers: EventConsumer[] = [];

  beforeEach(async () => {
    nc = await testBus('event-lanes-test');
    subjects = subjectsFor(uniqueNatsPrefix('lanes'));
    await ensureEventsStream(nc, subjects);
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
    await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
    await nc.drain();
  });

  function follow(settings: {
    laneOf: (e: BusEvent) => string;
    handle: (e: BusEvent, p: EventPosition) => Promise<unknown>;
    handleMany?: (events: Array<{ event: BusEvent; position: EventPosition }>) => Promise<unknown>;
  }): void {
    consumers.push(
      startEventConsumer({
        nc,
        subjects,
        logger,
        durable: DURABLE,
        ackWaitMs: 30_000,
        maxAckPending: 100,
        maxAttempts: 3,
        concurrency: 4,
        retry: { minMs: 10, maxMs: 50 },
        filterSubject: subjects.events('catalog', 'thing.>'),
        ...settings,
      }),
    );
  }

  test('events of one lane apply in stream order, lanes at once, and the events a lane waited for apply together', async () => {
    const entities = ['a', 'b', 'c'];
    const total = 30;
    for (let n = 0; n < total; n += 1) await publishEvent(nc, subjects, thing(entities[n % 3]!, n));
    let received = 0;
    let active = 0;
    let mostActive = 0;
    const applied: Applied = [];
    const batches: number[] = [];
    const apply = async (events: Array<{ event: BusEvent; position: EventPosition }>) => {
      active += 1;
      mostActive = Math.max(mostActive, active);
      // Every event has reached its lane before the first ones are applied: the rest wait together.
      await eventually(async () => (received === total ? true : undefined));
      for (const { event, position } of events) applied.push({ entity: entityOf(event), n: Number(event.data.n), seq: position.seq });
      active -= 1;
    };
    follow({
      laneOf: (e) => {
        received += 1;
        return entityOf(e);
      },
      handle: (event, position) => apply([{ event, position }]),
      handleMany: async (events) => {
        batches.push(events.length);
        await apply(events);
      },
    });

    await eventually(async () => (applied.length === total ? true : undefined), 20_000);
    expect(mostActive).toBe(3);
    expect(batches).toEqual([9, 9, 9]);
    for (const entity of entities) {
      const ns = applied.filter((x) => x.entity === entity).map((x) => x.n);
      expect(ns).toEqual([...ns].sort((x, y) => x - y));
      expect(ns).toHaveLength(10);
    }
  });

  test('an event its handler rejects goes to the dead letters after its attempts, and never holds up other lanes', async () => {
    const bad = thing('x', 0);
    await publishEvent(nc, subjects, bad);
    const others = Array.from({ length: 5 }, (_, n) => thing('y', n + 1));
    for (const e of others) await publishEvent(nc, subjects, e);
    const applied: string[] = [];
    let attempts = 0;
    follow({
      laneOf: entityOf,
      handle: async (event) => {
        if (event.id === bad.id) {
          attempts += 1;
          // Rejected only once the other lane is through: a lane that waited on this one would never get there.
          await eventually(async () => (applied.length === others.length ? true : undefined), 20_000);
          throw new TypeError('cannot apply this event');
        }
        applied.push(event.id);
      },
      handleMany: async (events) => void applied.push(...events.map((e) => e.event.id)),
    });

    const parked = await eventually(async () => {
      const letters = await readDeadLetters(nc, subjects);
      return letters.length > 0 ? letters : undefined;
    }, 20_000);
    expect(applied).toEqual(others.map((e) => e.id));
    expect(attempts).toBe(3);
    expect(parked).toHaveLength(1);
    expect(JSON.parse(new TextDecoder().decode(parked[0]!.data)).id).toBe(bad.id);
  });
});
