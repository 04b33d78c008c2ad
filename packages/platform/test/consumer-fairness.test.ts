import {
  AppError,
  callRpc,
  createMetricsRegistry,
  DEFAULT_MAX_PAYLOAD,
  newId,
  platformCounter,
  serveRpc,
  startEventConsumer,
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
  closeEventsTestBus,
  eventually,
  openEventsTestBus,
  publishEvent,
  readDeadLetters,
  testBusEvent,
  thingConsumerSettings,
  testCallContext,
} from '@catalog/testing';

/**
 * Decision 0114: a failure that the same call always meets again (`reply_too_large`) is parked
 * after its attempts instead of being retried without end (the fairness of the library's lanes is
 * tested with them, services/library/test/lane-fairness.test.ts).
 */
const DURABLE = 'test-fair';
const thing = (tenantId: string, entity: string): BusEvent => testBusEvent({ tenantId, data: { entity } });

describe('a shared consumer is bounded for every failure', () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  let metrics: MetricsRegistry;
  let server: RpcServer;
  let consumer: EventConsumer | null = null;
  const captured = capturingLogger('consumer-fairness');

  beforeEach(async () => {
    ({ nc, subjects } = await openEventsTestBus('consumer-fairness', 'fair'));
    metrics = createMetricsRegistry();
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
    await closeEventsTestBus({ nc, subjects });
  });

  function follow(more: Partial<EventConsumerSettings> & Pick<EventConsumerSettings, 'handle'>): void {
    consumer = startEventConsumer({
      nc,
      ...thingConsumerSettings(subjects, DURABLE),
      logger: captured.logger,
      metrics,
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
});
