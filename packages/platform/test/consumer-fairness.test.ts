import { jetstreamManager } from '@nats-io/jetstream';
import {
  AppError,
  callRpc,
  createMetricsRegistry,
  DEFAULT_MAX_PAYLOAD,
  ensureEventsStream,
  newId,
  platformCounter,
  serveRpc,
  startEventConsumer,
  subjectsFor,
  type BusEvent,
  type EventConsumer,
  type EventConsumerSettings,
  type MetricsRegistry,
  type NatsConnection,
  type RpcServer,
  type Subjects,
} from '@catalog/platform';
import {
  capturingLogger,
  eventually,
  publishEvent,
  readDeadLetters,
  testBus,
  testBusEvent,
  testCallContext,
  uniqueNatsPrefix,
} from '@catalog/testing';

/**
 * Decision 0114: a failure that the same call always meets again (`reply_too_large`) is parked
 * after its attempts instead of being retried without end; a lane that fails waits out its
 * backoff without its slot; one tenant's lanes hold at most `slotsPerTenant` slots; a transient
 * failure of one tenant's event, while others' are applied, is parked after its attempts.
 */
const DURABLE = 'test-fair';
const FAST_RETRY = { minMs: 10, maxMs: 50 };
const entityOf = (e: BusEvent): string => String(e.data.entity);
const thing = (tenantId: string, entity: string): BusEvent => testBusEvent({ tenantId, data: { entity } });
/** What a handler throws while a dependency is away for this event: transient (decision 0053). */
const unavailable = (): AppError => new AppError(503, 'service_unavailable', 'the analysis service is not available');

describe('a shared consumer is fair across tenants and bounded for every failure', () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  let metrics: MetricsRegistry;
  let server: RpcServer;
  let consumer: EventConsumer | null = null;
  const captured = capturingLogger('consumer-fairness');

  beforeEach(async () => {
    nc = await testBus('consumer-fairness');
    subjects = subjectsFor(uniqueNatsPrefix('fair'));
    metrics = createMetricsRegistry();
    await ensureEventsStream(nc, subjects);
    // A real operation whose answer is larger than the bus carries: answered reply_too_large.
    const huge = 'x'.repeat(DEFAULT_MAX_PAYLOAD + 10);
    server = await serveRpc({
      nc,
      subjects,
      service: 'facts',
      version: '1.0.0',
      logger: captured.logger,
      callContext: testCallContext(),
      handlers: { read: async () => ({ body: { text: huge } }) },
    });
  });

  afterEach(async () => {
    await consumer?.stop();
    consumer = null;
    await server.stop();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
    await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
    await nc.drain();
  });

  function follow(more: Partial<EventConsumerSettings> & Pick<EventConsumerSettings, 'handle'>): void {
    consumer = startEventConsumer({
      nc,
      subjects,
      logger: captured.logger,
      metrics,
      durable: DURABLE,
      ackWaitMs: 30_000,
      maxAckPending: 100,
      maxAttempts: 3,
      retry: FAST_RETRY,
      filterSubject: subjects.events('catalog', 'thing.>'),
      laneOf: entityOf,
      ...more,
    });
  }

  test('an event whose call is answered reply_too_large is parked after its attempts, counted and logged; the others are applied', async () => {
    const rpc = { nc, subjects, callContext: testCallContext(), timeoutMs: 5_000 };
    const poisoned = thing(newId(), 'big');
    const applied: string[] = [];
    follow({
      handle: async (event) => {
        if (event.id === poisoned.id) {
          const reply = await callRpc(
            rpc,
            'facts',
            'read',
            { params: {}, query: {}, body: null },
            { tenantId: event.tenantId, keyId: null, sourceSystem: 'test', requestId: 'r' },
          );
          if (!reply.ok) throw new AppError(reply.error.status, reply.error.code, reply.error.message);
        }
        applied.push(event.id);
      },
    });
    const seq = await publishEvent(nc, subjects, poisoned);
    const other = thing(newId(), 'small');
    await publishEvent(nc, subjects, other);

    const [letter] = await eventually(async () => {
      const letters = await readDeadLetters(nc, subjects);
      return letters.length > 0 ? letters : undefined;
    }, 20_000);
    expect(letter).toMatchObject({ streamSeq: seq, consumer: DURABLE, attempts: 3 });
    expect(letter!.reason).toMatch(/^rejected: reply_too_large: /);
    expect(platformCounter(metrics, 'deadLetters').value({ consumer: DURABLE, reason: 'rejected' })).toBe(1);
    const logged = captured.lines().find((line) => line.msg === 'parked a message in the dead-letter stream');
    expect(logged).toMatchObject({ level: 50, consumer: DURABLE, streamSeq: seq, kind: 'rejected', attempts: 3 });
    expect(applied).toEqual([other.id]);
  });

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
