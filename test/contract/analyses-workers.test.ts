import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, sineWav } from '@catalog/testing';
import { apiClient, confirmUpload } from '../support/api.js';
import { isRunning } from '../support/processes.js';
import { PATIENT_CALLS, startSystem, type RunningSystem } from '../support/system.js';

/**
 * Analysis workers as processes of their own (decision 0087): the system runs in this
 * process with no worker (ANALYSIS_CONCURRENCY=0, the API only); workers are started as
 * `services/analysis/src/main.ts` processes sharing the work queue. A job whose attempts all fail
 * ends FAILED and is refunded; a worker killed (SIGKILL) in the middle of a job leaves it to
 * another worker, and the job succeeds once, charged once. Jobs of several types queued for one
 * file are run together: one decode.
 */
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let wav: Buffer;
let tools: string;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  system = await startSystem({ ...PATIENT_CALLS, ANALYSIS_CONCURRENCY: '0' });
  api = apiClient(system.baseUrl);
  wav = await sineWav(2, { sampleRate: 8_000 });
  tools = mkdtempSync(join(tmpdir(), 'analysis-tools-'));
  // An ffmpeg that hangs before it decodes: the job stays RUNNING until its worker is killed.
  writeFileSync(join(tools, 'slow-ffmpeg'), '#!/bin/sh\nsleep 300\nexec ffmpeg "$@"\n');
  chmodSync(join(tools, 'slow-ffmpeg'), 0o755);
  // An ffmpeg that counts its runs (one line each in ffmpeg-runs).
  writeFileSync(join(tools, 'counting-ffmpeg'), `#!/bin/sh\necho run >> ${join(tools, 'ffmpeg-runs')}\nexec ffmpeg "$@"\n`);
  chmodSync(join(tools, 'counting-ffmpeg'), 0o755);
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopWorker(worker, 'SIGKILL')));
  await system.stop();
  rmSync(tools, { recursive: true, force: true });
});

/**
 * A worker process (its own process group, so that a kill takes its ffmpeg along), once it has
 * joined the work queue: it serves the analysis operations by then too, so a call the test makes
 * next never goes to a worker killed just before (whose subscriptions NATS may not have dropped
 * yet, a call routed there being lost until its timeout).
 */
async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const worker = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'services/analysis/src/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...system.env,
      LOG_LEVEL: 'info',
      ANALYSIS_HTTP_PORT: '0',
      ANALYSIS_CONCURRENCY: '1',
      ANALYSIS_ACK_WAIT_MS: '2000',
      ANALYSIS_MAX_DELIVERIES: '3',
      ANALYSIS_RETRY_MIN_MS: '50',
      ANALYSIS_RETRY_MAX_MS: '200',
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  workers.push(worker);
  const lines = createInterface({ input: worker.stdout! });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker was not ready within 60 s')), 60_000);
    // Every line is read (a full pipe would stop the worker); the one that says it is ready ends the wait.
    lines.on('line', (line) => {
      if (!line.includes('"analysis workers started"')) return;
      clearTimeout(timer);
      resolve();
    });
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited (${code}) before it was ready`));
    });
  });
  return worker;
}

/** Signals the worker's process group and waits until the worker has exited. */
async function stopWorker(worker: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (worker.pid === undefined || worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  if (isRunning(worker.pid)) process.kill(-worker.pid, signal);
  await exited;
}

async function toneAndCredits(credits: number) {
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  const created = await api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length } },
  });
  expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav })).status).toBe(200);
  expect((await confirmUpload(api, key, created.body.id)).status).toBe(200);
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: credits, reason: 'test' });
  return { orgId, key, assetId: created.body.id as string };
}

const job = async (key: string, jobId: string) => (await api.request('GET', `/api/v1/catalog/analyses/${jobId}`, { key })).body;
const ledgerOf = async (orgId: string, jobId: string): Promise<string[]> =>
  (await api.admin('GET', `/admin/v1/organizations/${orgId}/credits`)).body.entries
    .filter((e: { jobId: string | null }) => e.jobId === jobId)
    .map((e: { kind: string }) => e.kind)
    .sort();

test('a job whose every attempt fails ends FAILED after its maximum deliveries, refunded', async () => {
  const broken = await startWorker({ FFMPEG_PATH: join(tools, 'no-such-ffmpeg') });
  try {
    const { orgId, key, assetId } = await toneAndCredits(5);
    const created = await api.request('POST', '/api/v1/catalog/analyses', { key, body: { type: 'loudness', source: { assetId } } });
    expect(created.status).toBe(202);
    const failed = await eventually(async () => {
      const current = await job(key, created.body.jobId);
      return current.status === 'FAILED' ? current : undefined;
    }, 60_000);
    expect(failed).toMatchObject({ creditsCharged: 0, result: null, error: { code: 'max_deliveries_exceeded' } });
    expect(failed.error.message).toContain('decoder_unavailable');
    expect((await api.request('GET', '/api/v1/catalog/credits', { key })).body).toMatchObject({ balance: 5, reserved: 0 });
    expect(await ledgerOf(orgId, created.body.jobId)).toEqual(['refund', 'reserve']);
  } finally {
    await stopWorker(broken, 'SIGTERM');
  }
}, 120_000);

test('kill -9 of a worker in the middle of a job: another worker finishes it; it succeeds once, charged once', async () => {
  const { orgId, key, assetId } = await toneAndCredits(5);
  const doomed = await startWorker({ FFMPEG_PATH: join(tools, 'slow-ffmpeg') });
  const created = await api.request('POST', '/api/v1/catalog/analyses', { key, body: { type: 'loudness', source: { assetId } } });
  expect(created.status).toBe(202);
  await eventually(async () => ((await job(key, created.body.jobId)).status === 'RUNNING' ? true : undefined), 60_000);
  await stopWorker(doomed, 'SIGKILL');

  const survivor = await startWorker({});
  try {
    const done = await eventually(async () => {
      const current = await job(key, created.body.jobId);
      return current.status === 'SUCCEEDED' || current.status === 'FAILED' ? current : undefined;
    }, 90_000);
    expect(done).toMatchObject({ status: 'SUCCEEDED', creditsCharged: 2, error: null });
    expect((await api.request('GET', '/api/v1/catalog/credits', { key })).body).toMatchObject({ balance: 3, reserved: 0 });
    expect(await ledgerOf(orgId, created.body.jobId)).toEqual(['reserve', 'settle']);
    const events = await eventually(async () => {
      const page = await api.request('GET', '/api/v1/catalog/events?types=analysis.started,analysis.succeeded,analysis.failed', { key });
      const list: Array<{ type: string }> = page.body.events ?? [];
      return list.some((e) => e.type === 'analysis.succeeded') ? list : undefined;
    }, 30_000);
    expect(events.map((e) => e.type)).toEqual(['analysis.started', 'analysis.succeeded']);
  } finally {
    await stopWorker(survivor, 'SIGTERM');
  }
}, 150_000);

test('several types queued for one file run together on one worker: one ffmpeg decode for all of them', async () => {
  const { key, assetId } = await toneAndCredits(20);
  const types = ['loudness', 'tempo', 'key', 'waveform', 'cue_points'];
  const jobIds: string[] = [];
  for (const type of types) {
    const created = await api.request('POST', '/api/v1/catalog/analyses', { key, body: { type, source: { assetId } } });
    expect(created.status).toBe(202);
    jobIds.push(created.body.jobId);
  }
  const worker = await startWorker({ FFMPEG_PATH: join(tools, 'counting-ffmpeg') });
  try {
    const jobs = await eventually(async () => {
      const all = await Promise.all(jobIds.map((id) => job(key, id)));
      return all.every((j) => j.status === 'SUCCEEDED' || j.status === 'FAILED') ? all : undefined;
    }, 60_000);
    expect(jobs.map((j) => [j.type, j.status])).toEqual(types.map((type) => [type, 'SUCCEEDED']));
    const tempo = jobs[1].result;
    expect(tempo.bpm === null || typeof tempo.bpm === 'number').toBe(true);
    // A steady tone keeps no pulse; the result says so (decision 0191).
    expect(tempo.noBpmReason).toBe(tempo.bpm === null ? 'no_steady_pulse' : undefined);
    const runs = existsSync(join(tools, 'ffmpeg-runs')) ? readFileSync(join(tools, 'ffmpeg-runs'), 'utf8').trim().split('\n') : [];
    expect(runs).toHaveLength(1);
    expect((await api.request('GET', '/api/v1/catalog/credits', { key })).body).toMatchObject({
      balance: 20 - 2 - 3 - 3 - 2 - 2,
      reserved: 0,
    });
  } finally {
    await stopWorker(worker, 'SIGTERM');
  }
}, 120_000);
