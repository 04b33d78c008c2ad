import {
  commonConfig,
  consumeEvents,
  readConfig,
  runPeriodically,
  startService,
  type BusEvent,
  type ServiceRuntime,
} from '@catalog/platform';
import {
  createTestDatabase,
  eventually,
  publishEvent,
  serviceEnvironment,
  testBusEvent,
  testLogger,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('startservice');
});
afterAll(() => database.drop());

async function probeConfig() {
  return readConfig(commonConfig('probe', 0), {
    ...(await serviceEnvironment(database, ['probe'])),
    NATS_PREFIX: uniqueNatsPrefix(),
    PROBE_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
  });
}

const settings = async () => ({
  config: await probeConfig(),
  schema: 'probe',
  migrations: {},
  logger: testLogger(),
  moduleUrl: import.meta.url,
});

test('startService: what wire starts, then the HTTP listener; consumers and periodic tasks run on its connection and logger', async () => {
  const handled: BusEvent[] = [];
  let runs = 0;
  const runtime = await startService(await settings(), async (started: ServiceRuntime<unknown>) => {
    consumeEvents(started, {
      durable: 'start-service-test',
      ackWaitMs: 30_000,
      maxAckPending: 10,
      filterSubject: started.subjects.events('catalog', 'thing.>'),
      handle: async (event) => void handled.push(event),
    });
    runPeriodically(started, { name: 'count', intervalMs: 10, run: async () => void runs++ });
    return started;
  });
  try {
    expect(runtime.http).not.toBeNull();
    expect((await fetch(`${runtime.http!.url}/readyz`)).status).toBe(200);
    const event = testBusEvent();
    await publishEvent(runtime.nc, runtime.subjects, event);
    await eventually(async () => (handled.some((e) => e.id === event.id) ? true : undefined));
    await eventually(async () => (runs > 0 ? true : undefined));
  } finally {
    await runtime.stop();
  }
});

test('startService: a wire that fails stops all that had started, and its error goes on', async () => {
  let stopped = false;
  let started: ServiceRuntime<unknown> | undefined;
  const failure = new Error('wire failed');
  await expect(
    startService(await settings(), async (runtime: ServiceRuntime<unknown>) => {
      started = runtime;
      runtime.onStop(async () => {
        stopped = true;
      });
      throw failure;
    }),
  ).rejects.toBe(failure);
  expect(stopped).toBe(true);
  expect(started?.nc.isClosed()).toBe(true);
  expect(started?.http).toBeNull();
});
