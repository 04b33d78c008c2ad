import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiClient,
  createTestDatabase,
  eventually,
  freePort,
  serviceEnvironment,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';
import { httpPortVariable, repoRoot, SERVICE_NAMES } from '../../scripts/dev/services.js';
import { isRunning } from '../support/processes.js';

/**
 * `npm start`'s scripts/dev.ts as a user runs it (Postgres and NATS given, as scripts/start.sh
 * gives them): a service killed with SIGKILL is restarted and the system answers again, the other
 * services keep running, and Ctrl-C (SIGINT) stops every service.
 */
const ADMIN_TOKEN = 'npm-start-test-admin-token';
let database: TestDatabase;
let scratch: string;
let dev: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  database = await createTestDatabase('npmstart');
  scratch = mkdtempSync(join(tmpdir(), 'catalog-npm-start-'));
});

afterAll(async () => {
  if (dev?.pid !== undefined && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev!.once('exit', resolve));
    process.kill(-dev.pid, 'SIGINT');
    await exited;
  }
  await database.drop();
  rmSync(scratch, { recursive: true, force: true });
});

const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');

/** The pid of the latest start of `service` that dev.ts reported. */
function startedPid(service: string): number | undefined {
  const starts = [...plain(output).matchAll(new RegExp(`^\\S+ ${service}\\s+INFO\\s+(?:re)?started \\(pid (\\d+)`, 'gm'))];
  const last = starts.at(-1);
  return last ? Number(last[1]) : undefined;
}

const until = <T>(probe: () => T | undefined, timeoutMs: number): Promise<T> => eventually(async () => probe(), timeoutMs, 100);

test('a killed service is restarted while the others keep running; Ctrl-C stops them all', async () => {
  const ports = await Promise.all(SERVICE_NAMES.map(() => freePort()));
  const { NODE_OPTIONS: _jestOptions, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    // As scripts/start.sh gives them: each service's own database role and NATS user.
    ...(await serviceEnvironment(database)),
    NATS_PREFIX: uniqueNatsPrefix('npmstart'),
    ...Object.fromEntries(SERVICE_NAMES.map((service, i) => [httpPortVariable(service), String(ports[i])])),
    ADMIN_TOKEN,
    HTTP_HOST: '127.0.0.1',
    BLOB_DIR: join(scratch, 'blobs'),
    LOCAL_STATE_DIR: join(scratch, 'state'),
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
  };
  // As scripts/start.sh runs it: in a process group of its own.
  dev = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'scripts/dev.ts'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => dev!.once('exit', (code) => resolve(code)));

  const key = await until(() => /Demo API key: +(sk_\S+)/.exec(output)?.[1], 150_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${plain(output).slice(-4000)}`);
  });
  const pids = Object.fromEntries(SERVICE_NAMES.map((service) => [service, startedPid(service)!]));
  for (const service of SERVICE_NAMES) expect({ service, running: isRunning(pids[service]!) }).toEqual({ service, running: true });

  process.kill(pids.catalog!, 'SIGKILL');
  const restarted = await until(() => {
    const pid = startedPid('catalog');
    return pid !== pids.catalog ? pid : undefined;
  }, 30_000);
  expect(plain(output)).toMatch(/catalog\s+WARN\s+exited \(killed by SIGKILL\) after [\d.]+ s; restarting in 0\.5 s \(crash 1 in a row\)/);

  const api = apiClient(`http://127.0.0.1:${ports[0]}`, ADMIN_TOKEN);
  const created = await eventually(async () => {
    const response = await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'After the crash' } });
    return response.status === 201 ? response : undefined;
  }, 60_000);
  expect(created.body).toMatchObject({ title: 'After the crash' });
  for (const service of SERVICE_NAMES.filter((name) => name !== 'catalog')) {
    expect({ service, pid: startedPid(service), running: isRunning(pids[service]!) }).toEqual({
      service,
      pid: pids[service],
      running: true,
    });
  }

  process.kill(-dev.pid!, 'SIGINT');
  expect(await exited).toBe(0);
  for (const pid of [...Object.values(pids), restarted]) expect({ pid, running: isRunning(pid) }).toEqual({ pid, running: false });
  expect(plain(output)).not.toMatch(/stopping everything/);
}, 240_000);
