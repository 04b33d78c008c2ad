import {
  AppError,
  createMetricsRegistry,
  newId,
  platformCounter,
  startEventConsumer,
  type BusEvent,
  type EventConsumer,
  type EventConsumerSettings,
  type MetricsRegistry,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import {
  capturingLogger,
  closeEventsTestBus,
  eventually,
  openEventsTestBus,
  publishEvent,
  readDeadLetters,
  testBusEvent,
  thingConsumerSettings,
} from '@catalog/testing';
import { followInLanes } from '../src/consumers/lanes/fair-lanes.js';
import type { LaneSettings } from '../src/consumers/lanes/lane-settings.js';

/**
 * Decision 0114, in the library's lanes: a lane that fails waits out its backoff without its
 * slot; one tenant's lanes hold at most `slotsPerTenant` slots; a transient failure of one
 * tenant's event, while others' are applied, is parked after its attempts.
 */
const DURABLE = 'test-lane-fair';
const entityOf = (e: BusEvent): string => String(e.data.entity);
const thing = (tenantId: string, entity: string): BusEvent => testBusEvent({ tenantId, data: { entity } });
/** What a handler throws while a dependency is away for this event: transient (decision 0053). */
const unavailable = (): AppError => new AppError(503, 'service_unavailable', 'the analysis service is not available');

describe("the library's lanes are fair across tenants and bounded for every failure", () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  let metrics: MetricsRegistry;
  let consumer: EventConsumer | null = null;
  const captured = capturingLogger('consumer-fairness');

  beforeEach(async () => {
    ({ nc, subjects } = await openEventsTestBus('consumer-fairness', 'fair'));
    metrics = createMetricsRegistry();
  });

  afterEach(async () => {
    await consumer?.stop();
    consumer = null;
    await closeEventsTestBus({ nc, subjects });
  });

  function follow(
    more: Partial<Omit<EventConsumerSettings, 'follow'>> & Pick<EventConsumerSettings, 'handle'> & Omit<LaneSettings, 'laneOf'>,
  ): void {
    const { concurrency, slotsPerTenant, lanesPerBatch, handleMany, handleLanes, ...settings } = more;
    const lanes: LaneSettings = { laneOf: entityOf, concurrency, slotsPerTenant, lanesPerBatch, handleMany, handleLanes };
    consumer = startEventConsumer({
      nc,
      ...thingConsumerSettings(subjects, DURABLE),
      logger: captured.logger,
      metrics,
      ...settings,
      follow: (session) => followInLanes(session, lanes),
    });
  }

  test('a lane that keeps failing waits without its slot: with one slot, another tenant is applied, and the failing event is parked once others go through', async () => {
    const [tenantA, tenantB] = [newId(), newId()];
    const stuck = thing(tenantA, 'a');
    const applied: string[] = [];
    let failures = 0;
    follow({
      concurrency: 1,
      maxTransientAttempts: 3,
      handle: async (event) => {
        if (event.id === stuck.id) {
          failures += 1;
          throw unavailable();
        }
        applied.push(event.id);
      },
    });
    await publishEvent(nc, subjects, stuck);
    await eventually(async () => (failures > 0 ? true : undefined));
    // Tenant B's events keep coming: each goes through while A's event waits out its backoff.
    const letters = await eventually(async () => {
      await publishEvent(nc, subjects, thing(tenantB, `b${applied.length}`));
      const parked = await readDeadLetters(nc, subjects);
      return parked.length > 0 ? parked : undefined;
    }, 20_000);
    expect(letters).toHaveLength(1);
    expect(letters[0]!.reason).toMatch(/^transient: service_unavailable/);
    expect(applied.length).toBeGreaterThanOrEqual(2);
    expect(platformCounter(metrics, 'deadLetters').value({ consumer: DURABLE, reason: 'transient' })).toBe(1);
  });

  test("one tenant's lanes that hang hold at most slotsPerTenant slots: another tenant's events are applied", async () => {
    const [tenantA, tenantB] = [newId(), newId()];
    const hanging = ['a1', 'a2', 'a3'].map((entity) => thing(tenantA, entity));
    const released = new AbortController();
    const release = new Promise((resolve) => released.signal.addEventListener('abort', resolve, { once: true }));
    const applied: string[] = [];
    let started = 0;
    follow({
      concurrency: 2,
      slotsPerTenant: 1,
      handle: async (event) => {
        if (event.tenantId === tenantA) {
          started += 1;
          // A call of A's that does not come back until the test ends.
          await release;
        }
        applied.push(event.id);
      },
    });
    try {
      for (const e of hanging) await publishEvent(nc, subjects, e);
      await eventually(async () => (started > 0 ? true : undefined));
      const other = thing(tenantB, 'b');
      await publishEvent(nc, subjects, other);
      await eventually(async () => (applied.includes(other.id) ? true : undefined), 20_000);
      expect(started).toBe(1);
    } finally {
      released.abort();
    }
  });
});
