import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  callRpc,
  createHttpApp,
  listen,
  serveRpc,
  startServiceRuntime,
  subjectsFor,
  withSpan,
  readConfig,
  commonConfig,
} from '@catalog/platform';
import {
  createTestDatabase,
  serviceEnvironment,
  testBus,
  testCallContext,
  testLogger,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';

const exporter = new InMemorySpanExporter();

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

test('one trace spans the caller and the service across NATS (W3C trace context in headers)', async () => {
  const logger = testLogger();
  const subjects = subjectsFor(uniqueNatsPrefix());
  const server = await testBus('server');
  const client = await testBus('client');
  try {
    let seenByHandler = '';
    await serveRpc({
      nc: server,
      subjects,
      callContext: testCallContext(),
      service: 'traced',
      version: '1.0.0',
      logger,
      handlers: {
        op: async () => {
          seenByHandler = trace.getActiveSpan()?.spanContext().traceId ?? '';
          return { body: null };
        },
      },
    });
    const traceId = await withSpan('http request', {}, async (span) => {
      await callRpc(
        { nc: client, subjects, callContext: testCallContext() },
        'traced',
        'op',
        { params: {}, query: {}, body: null },
        { tenantId: 't', keyId: null, sourceSystem: 's', requestId: 'r' },
      );
      return span.spanContext().traceId;
    });
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(seenByHandler).toBe(traceId);
    const names = exporter
      .getFinishedSpans()
      .filter((s) => s.spanContext().traceId === traceId)
      .map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['http request', 'rpc call traced.op', 'rpc traced.op']));
  } finally {
    await server.drain();
    await client.drain();
  }
});

test('closing the server lets in-flight requests finish and refuses new ones', async () => {
  const app = createHttpApp({ logger: testLogger(), ready: async () => undefined });
  app.use(async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    ctx.body = { done: true };
  });
  const server = await listen(app, 0, '127.0.0.1');
  const inFlight = fetch(`${server.url}/slow`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const closing = server.close(5_000);
  const response = await inFlight;
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ done: true });
  await closing;
  await expect(fetch(`${server.url}/slow`)).rejects.toThrow();
});

describe('readiness', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('ready');
  });
  afterAll(() => database.drop());

  test('/readyz answers 200 while Postgres and NATS answer, 503 when NATS is gone; /healthz stays 200', async () => {
    const config = readConfig(commonConfig('probe', 0), {
      ...(await serviceEnvironment(database, ['probe'])),
      NATS_PREFIX: uniqueNatsPrefix(),
      PROBE_HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
    });
    const runtime = await startServiceRuntime({ config, schema: 'probe', migrations: {}, version: '0.0.0', logger: testLogger() });
    try {
      const server = await runtime.listen();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await runtime.nc.close();
      const notReady = await fetch(`${server.url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(((await notReady.json()) as { status: string }).status).toBe('not_ready');
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await runtime.stop();
    }
  });
});
