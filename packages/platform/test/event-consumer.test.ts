import { jetstreamManager } from '@nats-io/jetstream';
import {
  ensureEventsStream,
  sleep,
  startEventConsumer,
  subjectsFor,
  type BusEvent,
  type EventConsumer,
  type EventConsumerSettings,
  type EventPosition,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import {
  eventually,
  publishEvent,
  readDeadLetters,
  testBus,
  testBusEvent,
  testLogger,
  uniqueNatsPrefix,
  untilConsumerSettled,
} from '@catalog/testing';

const logger = testLogger('event-consumer');
const DURABLE = 'test-things';

interface Handled {
  event: BusEvent;
  position: EventPosition;
}

const event = (type = 'thing.happened'): BusEvent => testBusEvent({ type });
/** One tenant's: a slot takes lanes of one tenant together (decision 0114). */
const TENANT = testBusEvent().tenantId;
const thing = (entity: string, n: number, tenantId = TENANT): BusEvent => testBusEvent({ tenantId, data: { entity, n } });
const entityOf = (e: BusEvent): string => String(e.data.entity);
type Applied = Array<{ entity: string; n: number; seq: number }>;
const LANES = { concurrency: 4, maxAttempts: 3, retry: { minMs: 10, maxMs: 50 } };

/** What a handler throws while Postgres is down: a transient failure, retried without end. */
const databaseAway = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('durable event consumer', () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  const consumers: EventConsumer[] = [];

  beforeEach(async () => {
    nc = await testBus('event-consumer-test');
    subjects = subjectsFor(uniqueNatsPrefix('consumer'));
    await ensureEventsStream(nc, subjects);
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
    await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
    await nc.drain();
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

  // In lanes (`laneOf`, `concurrency`, `handleMany`; decision 0106).
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
    follow((event, position) => apply([{ event, position }]), {
      ...LANES,
      laneOf: (e) => {
        received += 1;
        return entityOf(e);
      },
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

  test('with every slot busy, events keep being taken: a lane waiting for a slot applies all of its events together', async () => {
    // One slot; lane a blocks it until every event has reached its lane.
    const events = [thing('a', 0), thing('b', 1), thing('c', 2), thing('c', 3), thing('c', 4)];
    for (const e of events) await publishEvent(nc, subjects, e);
    let received = 0;
    const batches: string[][] = [];
    const apply = async (applied: Array<{ event: BusEvent }>) => {
      if (applied.some(({ event }) => entityOf(event) === 'a'))
        await eventually(async () => (received === events.length ? true : undefined));
      batches.push(applied.map(({ event }) => `${entityOf(event)}${String(event.data.n)}`));
    };
    follow((event) => apply([{ event }]), {
      ...LANES,
      concurrency: 1,
      laneOf: (e) => {
        received += 1;
        return entityOf(e);
      },
      handleMany: apply,
    });

    await eventually(async () => (batches.flat().length === events.length ? true : undefined), 20_000);
    expect(batches).toEqual([['a0'], ['b1'], ['c2', 'c3', 'c4']]);
  });

  // Several lanes in one batch (`handleLanes`, `lanesPerBatch`; decision 0111).
  test('a slot takes the lanes queued behind it together, at most lanesPerBatch; a failed batch applies each lane on its own', async () => {
    // One slot; lane a holds it until every event has reached its lane, so b, c, d and e queue
    // and are taken two lanes at a time.
    const events = [thing('a', 0), thing('b', 1), thing('c', 2), thing('c', 3), thing('d', 4), thing('e', 5)];
    for (const e of events) await publishEvent(nc, subjects, e);
    let received = 0;
    const label = (applied: Array<{ event: BusEvent }>) => applied.map(({ event }) => `${entityOf(event)}${String(event.data.n)}`);
    const together: string[][][] = [];
    const alone: string[][] = [];
    const apply = async (applied: Array<{ event: BusEvent }>) => {
      if (applied.some(({ event }) => entityOf(event) === 'a'))
        await eventually(async () => (received === events.length ? true : undefined));
      alone.push(label(applied));
    };
    follow((event) => apply([{ event }]), {
      ...LANES,
      concurrency: 1,
      lanesPerBatch: 2,
      laneOf: (e) => {
        received += 1;
        return entityOf(e);
      },
      handleMany: apply,
      handleLanes: async (lanes) => {
        together.push(lanes.map(label));
        // The batch with lane e fails: its lanes are applied on their own.
        if (lanes.some((lane) => lane.some(({ event }) => entityOf(event) === 'e'))) throw new TypeError('not together');
      },
    });

    await eventually(async () => (alone.flat().includes('e5') ? true : undefined), 20_000);
    expect(together).toEqual([
      [['b1'], ['c2', 'c3']],
      [['d4'], ['e5']],
    ]);
    expect(alone).toEqual([['a0'], ['d4'], ['e5']]);
    // Every message was acknowledged once applied: nothing comes back.
    await settled(await publish(thing('f', 6)));
    expect(alone.flat()).toEqual(['a0', 'd4', 'e5', 'f6']);
  });

  test('a message redelivered while it waits for a slot replaces its earlier delivery: the lane applies it once', async () => {
    // One slot, held by lane a for three ack waits: b's events are redelivered while they wait.
    const events = [thing('a', 0), thing('b', 1), thing('b', 2)];
    for (const e of events) await publishEvent(nc, subjects, e);
    const batches: string[][] = [];
    const apply = async (applied: Array<{ event: BusEvent }>) => {
      if (applied.some(({ event }) => entityOf(event) === 'a')) await sleep(3_500);
      batches.push(applied.map(({ event }) => `${entityOf(event)}${String(event.data.n)}`));
    };
    follow((event) => apply([{ event }]), { ...LANES, concurrency: 1, ackWaitMs: 1_000, laneOf: entityOf, handleMany: apply });

    await eventually(async () => (batches.some((b) => b.includes('b2')) ? true : undefined), 20_000);
    expect(batches.slice(0, 2)).toEqual([['a0'], ['b1', 'b2']]);
  });

  test('an event its handler rejects goes to the dead letters after its attempts, and never holds up other lanes', async () => {
    const bad = thing('x', 0);
    await publishEvent(nc, subjects, bad);
    const others = Array.from({ length: 5 }, (_, n) => thing('y', n + 1));
    for (const e of others) await publishEvent(nc, subjects, e);
    const applied: string[] = [];
    let attempts = 0;
    follow(
      async (event) => {
        if (event.id === bad.id) {
          attempts += 1;
          // Rejected only once the other lane is through: a lane that waited on this one would never get there.
          await eventually(async () => (applied.length === others.length ? true : undefined), 20_000);
          throw new TypeError('cannot apply this event');
        }
        applied.push(event.id);
      },
      { ...LANES, laneOf: entityOf, handleMany: async (events) => void applied.push(...events.map((e) => e.event.id)) },
    );

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
