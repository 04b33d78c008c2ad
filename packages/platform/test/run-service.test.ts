import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `runService`, the one `main.ts` of every service: a process that reads its configuration,
 * starts, and stops on a signal, or logs why it could not start and exits 1.
 */
const platformIndex = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'index.ts');

/** A service's main: the platform's common configuration, and a start that says when it runs and stops. */
const mainScript = `import { commonConfig, createLogger, runService } from ${JSON.stringify(platformIndex)};
await runService('probe', commonConfig('probe', 8089), async (config) => {
  // Said once runService has what it does after the start (a macrotask after the start resolved).
  setTimeout(() => console.log(JSON.stringify({ started: config.serviceName })), 0);
  const work = setInterval(() => undefined, 1000); // what a service runs keeps the process up
  return {
    logger: createLogger({ service: 'probe', level: 'info' }),
    async stop() {
      clearInterval(work);
      console.log(JSON.stringify({ stopped: true }));
    },
  };
});
`;

interface Run {
  code: number | null;
  lines: Array<Record<string, any>>;
}

function runMain(
  script: string,
  env: Record<string, string>,
  onLine?: (line: Record<string, any>, signal: (s: NodeJS.Signals) => void) => void,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    const lines: Array<Record<string, any>> = [];
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      for (const text of complete) {
        if (text.trim() === '') continue;
        const line = JSON.parse(text) as Record<string, any>;
        lines.push(line);
        onLine?.(line, (s) => child.kill(s));
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines }));
  });
}

describe('runService', () => {
  let scratch: string;
  let script: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'run-service-'));
    script = join(scratch, 'main.mts');
    writeFileSync(script, mainScript);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test('a bad configuration is logged as fatal, naming the variable, and the process exits 1 without starting', async () => {
    const { code, lines } = await runMain(script, { DATABASE_URL: 'not a url', NATS_URL: 'nats://127.0.0.1:4222' });
    expect(code).toBe(1);
    expect(lines.some((line) => 'started' in line)).toBe(false);
    const fatal = lines.find((line) => line.msg === 'the probe service failed to start');
    expect(fatal?.level).toBe(60);
    expect(fatal?.err?.message).toContain('DATABASE_URL must be a URL');
  }, 120_000); // a tsx process from source: slow to start on a busy machine

  test('a started service is stopped on SIGTERM and the process exits 0', async () => {
    const { code, lines } = await runMain(
      script,
      { DATABASE_URL: 'postgres://probe@127.0.0.1:5432/probe', NATS_URL: 'nats://127.0.0.1:4222', CALL_CONTEXT_SECRET: 'x'.repeat(32) },
      (line, signal) => {
        if ('started' in line) signal('SIGTERM');
      },
    );
    expect(lines.filter((line) => 'started' in line || 'stopped' in line)).toEqual([{ started: 'probe' }, { stopped: true }]);
    expect(lines.find((line) => line.msg === 'shutting down')?.signal).toBe('SIGTERM');
    expect(code).toBe(0);
  }, 120_000); // a tsx process from source: slow to start on a busy machine
});
