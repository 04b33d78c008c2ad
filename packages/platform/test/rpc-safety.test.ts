import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  callRpc,
  createMetricsRegistry,
  DEFAULT_MAX_PAYLOAD,
  JsonText,
  newId,
  platformCounter,
  REPLY_ENVELOPE_RESERVE,
  serveRpc,
  subjectsFor,
  type NatsConnection,
  type RpcReplyLimits,
  type RpcRequest,
  type Subjects,
} from '@catalog/platform';
import { capturingLogger, testBus, testCallContext, uniqueNatsPrefix } from '@catalog/testing';

/**
 * Decision 0052: no reply is larger than the bus carries, and nothing a message does ends the
 * process. A reply over `max_payload` used to make `msg.respond` throw outside any handler.
 */
const call = { tenantId: newId(), keyId: null, sourceSystem: 'test', requestId: 'rpc-safety' };
const empty: RpcRequest = { params: {}, query: {}, body: null };

describe('rpc replies', () => {
  let server: NatsConnection;
  let client: NatsConnection;
  let subjects: Subjects;
  const captured = capturingLogger('rpc-safety');
  const metrics = createMetricsRegistry();
  let seenLimits: RpcReplyLimits | null = null;

  beforeAll(async () => {
    server = await testBus('rpc-safety-server');
    client = await testBus('rpc-safety-client');
    subjects = subjectsFor(uniqueNatsPrefix('rpcsafety'));
    const big = 'x'.repeat(DEFAULT_MAX_PAYLOAD + 10);
    await serveRpc({
      nc: server,
      subjects,
      service: 'safety',
      version: '1.0.0',
      logger: captured.logger,
      metrics,
      callContext: testCallContext(),
      handlers: {
        huge: async () => ({ body: { text: big } }),
        hugeText: async () => ({ body: new JsonText(`"${big}"`) }),
        rejectsWithoutError: () => Promise.reject('not even an Error'),
        limits: async (_request, _call, limits) => {
          seenLimits = limits;
          return { body: 'ok' };
        },
        echo: async (request) => ({ body: request.body }),
      },
    });
  });

  afterAll(async () => {
    await server.drain();
    await client.drain();
  });

  const rpc = (operation: string, request = empty) =>
    callRpc({ nc: client, subjects, callContext: testCallContext(), timeoutMs: 5_000 }, 'safety', operation, request, call);

  test('a reply larger than max_payload is answered reply_too_large, logged and counted; the service answers on', async () => {
    for (const operation of ['huge', 'hugeText']) {
      const reply = await rpc(operation);
      expect(reply).toEqual({
        ok: false,
        error: { status: 500, code: 'reply_too_large', message: expect.stringMatching(/larger than the service can send/) },
      });
    }
    const logged = captured.lines().filter((line) => line.msg === 'reply larger than the bus carries; answering reply_too_large');
    expect(logged.map((line) => line.operation)).toEqual(['huge', 'hugeText']);
    expect(logged[0]!.bytes).toBeGreaterThan(DEFAULT_MAX_PAYLOAD);
    expect(platformCounter(metrics, 'rpcFailures').value({ operation: 'huge', code: 'reply_too_large' })).toBe(1);
    expect(await rpc('echo', { ...empty, body: { still: 'here' } })).toEqual({ ok: true, status: 200, body: { still: 'here' } });
  });

  test('a handler that rejects with anything is answered internal_error and logged', async () => {
    expect(await rpc('rejectsWithoutError')).toEqual({
      ok: false,
      error: { status: 500, code: 'internal_error', message: 'internal error' },
    });
    expect(captured.lines().some((line) => line.msg === 'rpc handler failed' && line.requestId === 'rpc-safety')).toBe(true);
  });

  test('a handler is told how many bytes its reply body may take', async () => {
    await rpc('limits');
    expect(seenLimits).toEqual({ maxBodyBytes: server.info!.max_payload - REPLY_ENVELOPE_RESERVE });
  });

  test('a request larger than max_payload is 413 payload_too_large, not an exception', async () => {
    const reply = await rpc('echo', { ...empty, body: 'y'.repeat(DEFAULT_MAX_PAYLOAD + 1) });
    expect(reply).toEqual({ ok: false, error: { status: 413, code: 'payload_too_large', message: expect.any(String) } });
  });
});

describe('a service that stops', () => {
  test('a call it took before it stopped is answered, even when its handler is still running as the connection closes', async () => {
    const serverNc = await testBus('rpc-stop-server');
    const client = await testBus('rpc-stop-client');
    const subjects = subjectsFor(uniqueNatsPrefix('rpcstop'));
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const rpcServer = await serveRpc({
      nc: serverNc,
      subjects,
      service: 'stopping',
      version: '1.0.0',
      logger: capturingLogger('rpc-stop').logger,
      callContext: testCallContext(),
      handlers: {
        slow: async (request) => {
          started();
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { body: request.body };
        },
      },
    });
    try {
      const answer = callRpc(
        { nc: client, subjects, callContext: testCallContext(), timeoutMs: 5_000 },
        'stopping',
        'slow',
        { ...empty, body: 'taken' },
        call,
      );
      await handlerStarted;
      // What a service's runtime does on SIGTERM: its endpoints stop, then its connection drains.
      await rpcServer.stop(5_000);
      await serverNc.drain();
      expect(await answer).toEqual({ ok: true, status: 200, body: 'taken' });
      const after = await callRpc(
        { nc: client, subjects, callContext: testCallContext(), timeoutMs: 2_000 },
        'stopping',
        'slow',
        empty,
        call,
      );
      expect(after).toMatchObject({ ok: false, error: { status: 503, code: 'service_unavailable' } });
    } finally {
      if (!serverNc.isClosed()) await serverNc.drain();
      await client.drain();
    }
  });
});

describe('unhandled rejections', () => {
  const run = promisify(execFile);
  const platformIndex = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'index.ts');
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'rejections-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test('are logged (and counted) and the process goes on, where Node would exit', async () => {
    const script = join(scratch, 'forgotten-catch.ts');
    writeFileSync(
      script,
      `import { createLogger, logUnhandledRejections, platformCounter, processMetrics } from ${JSON.stringify(platformIndex)};
logUnhandledRejections(createLogger({ service: 'rejections' }));
void Promise.reject(new Error('nobody catches this'));
setTimeout(() => console.log(JSON.stringify({ alive: true, counted: platformCounter(processMetrics, 'unhandledRejections').value() })), 200);
`,
    );
    const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
      env: { PATH: process.env.PATH ?? '' },
      timeout: 100_000, // a tsx process from source: slow to start on a busy machine
    });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    expect(lines.find((line) => line.msg === 'unhandled promise rejection (logged; the process goes on)')?.err?.message).toBe(
      'nobody catches this',
    );
    // The logger writes asynchronously: its line may come after the script's own.
    expect(lines.find((line) => 'alive' in line)).toEqual({ alive: true, counted: 1 });
  }, 120_000);
});
