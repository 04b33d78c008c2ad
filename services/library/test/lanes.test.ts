import {
  sleep,
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
import { followInLanes } from '../src/consumers/lanes/fair-lanes.js';
import type { LaneSettings } from '../src/consumers/lanes/lane-settings.js';

/**
 * The library's lanes (decisions 0106, 0108, 0111) on a durable consumer of the platform: the
 * consumer's `follow` takes each session's messages into lanes.
 */
const logger = testLogger('lanes');
const DURABLE = 'test-lanes';

/** One tenant's: a slot takes lanes of one tenant together (decision 0114). */
const TENANT = testBusEvent().tenantId;
const thing = (entity: string, n: number, tenantId = TENANT): BusEvent => testBusEvent({ tenantId, data: { entity, n } });
const entityOf = (e: BusEvent): string => String(e.data.entity);
type Applied = Array<{ entity: string; n: number; seq: number }>;
const LANES = { concurrency: 4, maxAttempts: 3, retry: { minMs: 10, maxMs: 50 } };

describe('a durable consumer in lanes', () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  const consumers: EventConsumer[] = [];

  beforeEach(async () => {
    ({ nc, subjects } = await openEventsTestBus('lanes-test', 'lanes'));
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    await closeEventsTestBus({ nc, subjects });
  });

  function follow(
    handle: (event: BusEvent, position: EventPosition) => Promise<unknown>,
    more: Partial<Omit<EventConsumerSettings, 'follow'>> & LaneSettings,
  ): EventConsumer {
    const { laneOf, concurrency, slotsPerTenant, lanesPerBatch, handleMany, handleLanes, ...settings } = more;
    const lanes = { laneOf, concurrency, slotsPerTenant, lanesPerBatch, handleMany, handleLanes };
    const consumer = startEventConsumer({
      nc,
      subjects,
      logger,
      durable: DURABLE,
      ackWaitMs: 30_000,
      maxAckPending: 100,
      filterSubject: subjects.events('catalog', 'thing.>'),
      handle,
      ...settings,
      follow: (session) => followInLanes(session, lanes),
    });
    consumers.push(consumer);
    return consumer;
  }

  const publish = (e: BusEvent): Promise<number> => publishEvent(nc, subjects, e);
  const settled = (seq: number) => untilConsumerSettled(nc, subjects, DURABLE, seq);

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
