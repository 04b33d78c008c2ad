import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startOtlpCollector, type OtlpCollector } from '@catalog/testing';

/**
 * `node --import @catalog/platform/telemetry-register` as the services are started (chart, image,
 * `npm start`), in a child process: an HTTP server behind it continues the caller's W3C trace,
 * spans reach an OTLP endpoint when one is set, and with OTEL_SDK_DISABLED=true nothing of
 * OpenTelemetry is loaded.
 */
const run = promisify(execFile);
const platformDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const register = join(platformDir, 'src', 'observability', 'telemetry-register.ts');
const otelApi = pathToFileURL(createRequire(import.meta.url).resolve('@opentelemetry/api')).href;
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

let scratch: string;
let script: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'telemetry-register-'));
  script = join(scratch, 'server.mjs');
  // One request with a traceparent to an instrumented server; prints what the handler saw.
  writeFileSync(
    script,
    `import http from 'node:http';
import { createRequire } from 'node:module';
import { trace } from '${otelApi}';
const server = http.createServer((req, res) => res.end(trace.getActiveSpan()?.spanContext().traceId ?? 'none'));
server.listen(0, '127.0.0.1', async () => {
  const response = await fetch('http://127.0.0.1:' + server.address().port + '/work', { headers: { traceparent: '00-${TRACE_ID}-b7ad6b7169203331-01' } });
  const seen = await response.text();
  server.close();
  const otel = Object.keys(globalThis[Symbol.for('opentelemetry.js.api.1')] ?? {}).sort();
  const sdkLoaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/@opentelemetry/sdk-'));
  console.log(JSON.stringify({ seen, otel, sdkLoaded }));
});
`,
  );
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function runServer(env: Record<string, string>): Promise<{ seen: string; otel: string[]; sdkLoaded: boolean }> {
  const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx', '--import', register, script], {
    cwd: platformDir,
    env: { PATH: process.env.PATH ?? '', OTEL_SERVICE_NAME: 'register-test', ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { seen: string; otel: string[]; sdkLoaded: boolean };
}

test('enabled: the server span continues the incoming trace (log lines carry its id)', async () => {
  const { seen, otel, sdkLoaded } = await runServer({});
  expect(seen).toBe(TRACE_ID);
  expect(sdkLoaded).toBe(true);
  expect(otel).toEqual(expect.arrayContaining(['context', 'propagation', 'trace']));
});

test('OTEL_SDK_DISABLED=true: no tracer, propagator or context manager, and no SDK module loaded', async () => {
  const { seen, otel, sdkLoaded } = await runServer({ OTEL_SDK_DISABLED: 'true' });
  expect(seen).toBe('none');
  expect(otel).toEqual([]);
  expect(sdkLoaded).toBe(false);
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let collector: OtlpCollector;

  beforeAll(async () => {
    collector = await startOtlpCollector();
  });
  afterAll(async () => collector.close());

  test('the spans are exported over OTLP/HTTP with the service name', async () => {
    const { seen } = await runServer({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    expect(seen).toBe(TRACE_ID);
    // The batch is sent when the process ends at the latest (shutdown flushes it).
    expect(collector.traces.length).toBeGreaterThan(0);
    const body = collector.traces.join('\n');
    expect(body).toContain('register-test');
    expect(body).toContain(TRACE_ID);
  });
});
