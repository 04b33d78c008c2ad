/**
 * bench/analysis/workers.ts: 4 analysis worker processes on this machine's cores drain 100 jobs of
 * one minute of audio each (rendered music, 44.1 kHz stereo, MP3 at 192 kbit/s; each job its own
 * uploaded file, so no two jobs share a decode; the seven analysis types in turn) queued through
 * the gateway; then every job must have SUCCEEDED once and been charged once (no job lost, none
 * run twice to its end). The gateway, the asset service (fs blob store) and the
 * analysis API (ANALYSIS_CONCURRENCY=0) run as child processes from their built output, as do the
 * workers (ANALYSIS_CONCURRENCY=1 each).
 *
 * Run by bench/analysis/run.ts (`npm run bench -- analysis`, which builds the services and starts
 * Postgres and NATS when DATABASE_URL and NATS_URL are not set). Needs ffmpeg, fluidsynth and the
 * sound font. BENCH_ANALYSIS_JOBS (default 100), BENCH_ANALYSIS_WORKERS
 * (default 4), BENCH_DIR. Results: bench/results/analysis-workers.json.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANALYSIS_COSTS } from '@catalog/contracts';
import { apiClient, demoSong, freePort, renderSong } from '@catalog/testing';
import { machine, repoRoot, startService, type BenchProcess } from '../support/processes.js';
import { benchEnv, createBenchDatabase, fetchJson } from '../support/setup.js';

const JOBS = Number(process.env.BENCH_ANALYSIS_JOBS ?? 100);
const WORKERS = Number(process.env.BENCH_ANALYSIS_WORKERS ?? 4);
const SECONDS = 60;
const TYPES = ['technical', 'loudness', 'cue_points', 'tempo', 'key', 'waveform', 'fingerprint'] as const;

const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function renderMinute(dir: string): Promise<string> {
  const rendered = join(dir, 'rendered.wav');
  const file = join(dir, 'minute.mp3');
  await renderSong({ bpm: 120, notes: demoSong(Math.ceil(SECONDS / 2) + 2, 9, 'minor'), programs: { 1: 33 } }, rendered, { effects: true });
  execFileSync(
    'ffmpeg',
    ['-nostdin', '-v', 'error', '-y', '-i', rendered, '-t', String(SECONDS), '-c:a', 'libmp3lame', '-b:a', '192k', file],
    {
      timeout: 120_000,
    },
  );
  return file;
}

interface Tally {
  statuses: Record<string, number>;
  jobs: Array<{ status: string; type: string; startedAt: string | null; finishedAt: string | null; creditsCharged: number }>;
}

async function tally(gatewayUrl: string, auth: Record<string, string>): Promise<Tally> {
  const jobs: Tally['jobs'] = [];
  let after: string | null = null;
  do {
    const page: { analyses: Tally['jobs']; nextCursor: string | null } = await fetchJson(
      `${gatewayUrl}/api/v1/catalog/analyses?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      { headers: auth },
    );
    jobs.push(...page.analyses);
    after = page.nextCursor;
  } while (after);
  const statuses: Record<string, number> = {};
  for (const job of jobs) statuses[job.status] = (statuses[job.status] ?? 0) + 1;
  return { statuses, jobs };
}

/** 4 workers drain the queued jobs, none lost; writes bench/results/analysis-workers.json. */
export async function workersBench(): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL) throw new Error('DATABASE_URL and NATS_URL are required');
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-analysis-workers-'));
  const database = await createBenchDatabase('workers');
  const processes: BenchProcess[] = [];
  try {
    const file = await renderMinute(work);
    const gatewayPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const { env, adminToken } = await benchEnv(database, {
      DB_POOL_SIZE: '4',
      BLOB_BACKEND: 'fs',
      BLOB_DIR: join(work, 'blobs'),
      BLOB_SIGNING_SECRET: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: gatewayUrl,
      ANALYSIS_WORK_DIR: work,
    });
    processes.push(await startService('asset', env, await freePort()));
    processes.push(await startService('analysis', { ...env, ANALYSIS_CONCURRENCY: '0' }, await freePort()));
    processes.push(await startService('gateway', env, gatewayPort));

    const api = apiClient(gatewayUrl, adminToken);
    const { orgId, key } = await api.tenant({ name: 'Bench FM', permissions: ['catalog:api', 'catalog:analysis'] });
    const auth = { authorization: `Bearer ${key}` };
    const bytes = readFileSync(file);
    const upload = async (): Promise<string> => {
      const asset = await fetchJson(`${gatewayUrl}/api/v1/catalog/assets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          retention: 'standalone',
          upload: { filename: 'minute.mp3', contentType: 'audio/mpeg', size: bytes.length },
        }),
      });
      const put = await fetch(asset.upload.url, { method: 'PUT', headers: asset.upload.headers, body: bytes });
      if (!put.ok) throw new Error(`upload: ${put.status}`);
      await fetchJson(`${gatewayUrl}/api/v1/catalog/assets/${asset.assetId}/confirm`, { method: 'POST', headers: auth });
      return asset.assetId as string;
    };
    const assetIds: string[] = [];
    for (let i = 0; i < JOBS; i += 5) assetIds.push(...(await Promise.all(Array.from({ length: Math.min(5, JOBS - i) }, upload))));
    const types = Array.from({ length: JOBS }, (_, i) => TYPES[i % TYPES.length]!);
    const cost = types.reduce((sum, type) => sum + ANALYSIS_COSTS[type], 0);
    await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: cost, reason: 'bench' });

    // Every job queued before the workers start: they drain a full queue.
    for (let i = 0; i < JOBS; i += 10) {
      await Promise.all(
        types.slice(i, i + 10).map((type, j) =>
          fetchJson(`${gatewayUrl}/api/v1/catalog/analyses`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ type, source: { assetId: assetIds[i + j] } }),
          }),
        ),
      );
    }
    const loadBefore = loadavg()[0]!;
    const started = performance.now();
    const workers: BenchProcess[] = [];
    for (let i = 0; i < WORKERS; i++) workers.push(await startService('analysis', { ...env, ANALYSIS_CONCURRENCY: '1' }, await freePort()));
    processes.push(...workers);
    let result: Tally;
    for (;;) {
      result = await tally(gatewayUrl, auth);
      if ((result.statuses.SUCCEEDED ?? 0) + (result.statuses.FAILED ?? 0) >= JOBS) break;
      await sleep(500);
    }
    const drainSeconds = (performance.now() - started) / 1000;
    const credits = await fetchJson(`${gatewayUrl}/api/v1/catalog/credits`, { headers: auth });
    const ledger = await api.admin('GET', `/admin/v1/organizations/${orgId}/credits?limit=500`);
    const settled = (ledger.body.entries as Array<{ kind: string }>).filter((e) => e.kind === 'settle').length;
    const jobSeconds = result.jobs
      .filter((job) => job.startedAt && job.finishedAt)
      .map((job) => (Date.parse(job.finishedAt!) - Date.parse(job.startedAt!)) / 1000);
    const output = {
      benchmark: 'analysis-workers',
      date: new Date().toISOString(),
      machine: { ...machine(), loadAverageBefore: round(loadBefore, 2), loadAverageAfter: round(loadavg()[0]!, 2) },
      file: { seconds: SECONDS, sampleRate: 44_100, channels: 2, format: 'MP3 192 kbit/s', content: 'rendered General MIDI music' },
      jobs: JOBS,
      workers: WORKERS,
      types: TYPES,
      drainSeconds: round(drainSeconds),
      jobsPerMinute: round((JOBS / drainSeconds) * 60),
      audioRealtime: round((JOBS * SECONDS) / drainSeconds),
      meanJobSeconds: round(jobSeconds.reduce((a, b) => a + b, 0) / Math.max(1, jobSeconds.length), 2),
      statuses: result.statuses,
      credits: { granted: cost, balance: credits.balance, reserved: credits.reserved, settleEntries: settled },
      workerPeakRssMiB: workers.map((worker) => worker.peakRssMiB()),
      noJobLost: result.statuses.SUCCEEDED === JOBS && credits.balance === 0 && credits.reserved === 0 && settled === JOBS,
    };
    writeFileSync(join(repoRoot, 'bench/results/analysis-workers.json'), `${JSON.stringify(output, null, 2)}\n`);
    console.log(JSON.stringify(output, null, 2));
  } finally {
    for (const process of processes.reverse()) await process.stop();
    await database.drop();
    rmSync(work, { recursive: true, force: true });
  }
}
