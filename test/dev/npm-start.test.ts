import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  apiClient,
  createTestDatabase,
  eventually,
  freePort,
  serviceEnvironment,
  uniqueNatsPrefix,
  type ApiClient,
  type TestDatabase,
} from '@catalog/testing';
import { DEMO_CREDITS, DEMO_GRANT_REASON } from '../../scripts/dev/demo-organization.js';
import { httpPortVariable, repoRoot, SERVICE_NAMES } from '../../scripts/dev/services.js';
import { isRunning } from '../support/processes.js';

/**
 * `npm start`'s scripts/dev.ts as a user runs it (Postgres and NATS given, as scripts/start.sh
 * gives them): the demo organisation gets its 1,000 credits once and the README's analysis works
 * as written; a service killed with SIGKILL is restarted and the system answers again, the other
 * services keep running, and Ctrl-C (SIGINT) stops every service; a second start reuses the demo
 * organisation without granting again, and every service listens on 127.0.0.1 (decision 0117).
 * The tests run in order, on one database and one LOCAL_STATE_DIR.
 */
const ADMIN_TOKEN = 'npm-start-test-admin-token';
let database: TestDatabase;
let scratch: string;
let ports: number[];
let api: ApiClient;
let dev: Dev | undefined;
let firstOrgId: string | undefined;

interface Dev {
  child: ChildProcess;
  output: string;
  exited: Promise<number | null>;
}

beforeAll(async () => {
  database = await createTestDatabase('npmstart');
  scratch = mkdtempSync(join(tmpdir(), 'catalog-npm-start-'));
  ports = await Promise.all(SERVICE_NAMES.map(() => freePort()));
  api = apiClient(`http://127.0.0.1:${ports[0]}`, ADMIN_TOKEN);
});

afterAll(async () => {
  if (dev) await stop(dev);
  await database.drop();
  rmSync(scratch, { recursive: true, force: true });
});

const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');

/** The pid of the latest start of `service` that dev.ts reported. */
function startedPid(service: string): number | undefined {
  const starts = [...plain(dev!.output).matchAll(new RegExp(`^\\S+ ${service}\\s+INFO\\s+(?:re)?started \\(pid (\\d+)`, 'gm'))];
  const last = starts.at(-1);
  return last ? Number(last[1]) : undefined;
}

const until = <T>(probe: () => T | undefined, timeoutMs: number): Promise<T> => eventually(async () => probe(), timeoutMs, 100);

/** Starts scripts/dev.ts as scripts/start.sh runs it (in a process group of its own), with HTTP_HOST left to its default. */
async function start(logLevel: string): Promise<Dev> {
  const { NODE_OPTIONS: _jestOptions, HTTP_HOST: _host, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    // As scripts/start.sh gives them: each service's own database role and NATS user.
    ...(await serviceEnvironment(database)),
    NATS_PREFIX: uniqueNatsPrefix('npmstart'),
    ...Object.fromEntries(SERVICE_NAMES.map((service, i) => [httpPortVariable(service), String(ports[i])])),
    ADMIN_TOKEN,
    BLOB_DIR: join(scratch, 'blobs'),
    LOCAL_STATE_DIR: join(scratch, 'state'),
    LOG_LEVEL: logLevel,
    OTEL_SDK_DISABLED: 'true',
  };
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'scripts/dev.ts'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const started: Dev = { child, output: '', exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  child.stdout!.on('data', (chunk: Buffer) => (started.output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (started.output += chunk.toString()));
  return started;
}

/** The demo organisation and key the start-up banner prints. */
async function banner(run: Dev): Promise<{ orgId: string; key: string }> {
  const key = await until(() => /Demo API key: +(sk_\S+)/.exec(run.output)?.[1], 150_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${plain(run.output).slice(-4000)}`);
  });
  return { key, orgId: /Demo org: +(\S+)/.exec(run.output)![1]! };
}

/** Ctrl-C: SIGINT to the process group, as a terminal sends it; its exit code. */
async function stop(run: Dev): Promise<number | null> {
  if (run.child.exitCode === null && run.child.signalCode === null) process.kill(-run.child.pid!, 'SIGINT');
  return run.exited;
}

/** The demo grants in the organisation's ledger. */
async function demoGrants(orgId: string): Promise<unknown[]> {
  const ledger = await api.admin<{ entries: Array<{ kind: string; reason: string | null }> }>(
    'GET',
    `/admin/v1/organizations/${orgId}/credits?limit=500`,
  );
  expect(ledger.status).toBe(200);
  return ledger.body.entries.filter((entry) => entry.kind === 'grant' && entry.reason === DEMO_GRANT_REASON);
}

/** The README's "Try it" analysis block, exactly as written but for the gateway's port. */
function readmeAnalysisBlock(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const marker = readme.indexOf('<!-- try-analysis');
  expect(marker).toBeGreaterThan(-1);
  const open = readme.indexOf('```sh\n', marker) + '```sh\n'.length;
  return readme.slice(open, readme.indexOf('\n```', open)).replaceAll('localhost:8080', `localhost:${ports[0]}`);
}

test('the first start grants the demo organisation 1,000 credits, and the README analysis works as written', async () => {
  dev = await start('warn');
  const { orgId, key } = await banner(dev);
  firstOrgId = orgId;
  const credits = await api.request('GET', '/api/v1/catalog/credits', { key });
  expect(credits).toMatchObject({ status: 200, body: { balance: DEMO_CREDITS, reserved: 0 } });
  expect(await demoGrants(orgId)).toHaveLength(1);

  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', readmeAnalysisBlock()], {
    cwd: scratch,
    env: { ...process.env, KEY: key },
    timeout: 120_000,
  });
  const jobId = /"jobId":"([0-9a-f-]{36})"[^]*"status":"SUCCEEDED"/.exec(stdout)?.[1];
  expect({ jobId, stdout: jobId ? '' : stdout }).toEqual({ jobId: expect.any(String), stdout: '' });
  const job = await api.request('GET', `/api/v1/catalog/analyses/${jobId}`, { key });
  expect(job.body).toMatchObject({ type: 'loudness', status: 'SUCCEEDED', result: { integratedLufs: expect.any(Number) } });
  expect(stdout).toContain(`"balance":${DEMO_CREDITS - 2}`);
  // The library started before the catalog waited for it without a WARN (decision 0117's issue, item 7).
  expect(plain(dev.output)).not.toMatch(/library\s+WARN\s+rebuilding the library failed/);
  // The signing key comes from the credentials file: upload URLs survive a restart of the asset service.
  expect(plain(dev.output)).not.toMatch(/BLOB_SIGNING_SECRET is not set/);
}, 300_000);

test('a killed service is restarted while the others keep running; Ctrl-C stops them all', async () => {
  const key = (await banner(dev!)).key;
  const pids = Object.fromEntries(SERVICE_NAMES.map((service) => [service, startedPid(service)!]));
  for (const service of SERVICE_NAMES) expect({ service, running: isRunning(pids[service]!) }).toEqual({ service, running: true });

  process.kill(pids.catalog!, 'SIGKILL');
  const restarted = await until(() => {
    const pid = startedPid('catalog');
    return pid !== pids.catalog ? pid : undefined;
  }, 30_000);
  expect(plain(dev!.output)).toMatch(
    /catalog\s+WARN\s+exited \(killed by SIGKILL\) after [\d.]+ s; restarting in 0\.5 s \(crash 1 in a row\)/,
  );

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

  expect(await stop(dev!)).toBe(0);
  for (const pid of [...Object.values(pids), restarted]) expect({ pid, running: isRunning(pid) }).toEqual({ pid, running: false });
  expect(plain(dev!.output)).not.toMatch(/stopping everything/);
}, 240_000);

test('a second start reuses the demo organisation and does not grant again; every service listens on 127.0.0.1', async () => {
  expect(firstOrgId).toBeDefined();
  dev = await start('info');
  const { orgId, key } = await banner(dev);
  expect(orgId).toBe(firstOrgId);
  expect(await demoGrants(orgId)).toHaveLength(1);
  const credits = await api.request('GET', '/api/v1/catalog/credits', { key });
  expect(credits.body).toMatchObject({ balance: DEMO_CREDITS - 2 });
  const output = plain(dev.output);
  SERVICE_NAMES.forEach((service, i) => {
    const listening = new RegExp(`^\\S+ ${service}\\s+INFO\\s+http listening (.*)$`, 'm').exec(output)?.[1];
    expect({ service, listening }).toEqual({ service, listening: `address=127.0.0.1 port=${ports[i]}` });
  });
  expect(await stop(dev)).toBe(0);
}, 240_000);
