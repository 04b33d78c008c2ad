/**
 * Import benchmark (bench/import). Results: bench/results/import.json and a summary on stdout.
 *
 *   An import job (decision 0134) of BENCH_IMPORT_ROWS (100,000) JSON Lines rows through the API,
 *   with the gateway, catalog, asset and events services running from their built output: the
 *   file uploaded as a standalone asset, `POST /api/v1/catalog/jobs`, then `GET` the job every
 *   200 ms until it succeeded. A third of the rows have a DMRN, a third an externalId, a third
 *   neither. Measured: the job's run (its startedAt to finishedAt, as the catalog recorded them)
 *   and from the POST to the client seeing it succeeded, rows per second; then the time from the
 *   job's end to the last of its entity events stored in the feed (`events.feed.received_at`, all
 *   of them counted there) and to `job.succeeded` read through `GET /api/v1/catalog/events`.
 *   The same file again (a rerun: every row unchanged) is timed too. BENCH_IMPORT_LIBRARY=1 also
 *   runs the library service, which projects the imported entities meanwhile.
 *
 * `node --conditions=source --import tsx bench/import/run.ts` with DATABASE_URL and NATS_URL set
 * (or `npm run bench -- import`), after `npm run build`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { apiClient } from '@catalog/testing';
import { machine, memoryLimits, processCpuMs, repoRoot, startService, type BenchProcess } from '../support/processes.js';
import { benchEnv, createBenchDatabase, requestJson } from '../support/setup.js';

if (!process.env.DATABASE_URL || !process.env.NATS_URL) throw new Error('DATABASE_URL and NATS_URL are required');
const resultsDir = join(repoRoot, 'bench', 'results');
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const GATEWAY = 18680;
const base = `http://127.0.0.1:${GATEWAY}`;

function row(n: number): Record<string, unknown> {
  const title = `Imported song ${n}`;
  if (n % 3 === 0) return { type: 'song', title, artist: `Artist ${n % 997}`, dmrn: `BENCH-${n}` };
  if (n % 3 === 1) return { type: 'song', title, artist: `Artist ${n % 991}`, externalId: `legacy-${n}` };
  return { type: 'jingle', title };
}

/** The file uploaded and confirmed as a standalone asset; its id. */
async function uploadFile(key: string): Promise<{ assetId: string; bytes: number }> {
  const body = Buffer.from(`${Array.from({ length: ROWS }, (_, i) => JSON.stringify(row(i + 1))).join('\n')}\n`);
  const auth = { authorization: `Bearer ${key}` };
  const upload = { filename: 'library.jsonl', contentType: 'application/x-ndjson', size: body.length };
  const asset = await requestJson('POST', `${base}/api/v1/catalog/assets`, auth, { retention: 'standalone', upload });
  const put = await fetch(asset.upload.url, { method: 'PUT', headers: asset.upload.headers, body });
  if (!put.ok) throw new Error(`upload: ${put.status} ${await put.text()}`);
  await requestJson('POST', `${base}/api/v1/catalog/assets/${asset.assetId}/confirm`, auth);
  return { assetId: asset.assetId as string, bytes: body.length };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Imports the file once: the job's timings, then the feed's. */
async function importOnce(owner: pg.Client, tenantId: string, key: string, assetId: string) {
  const auth = { authorization: `Bearer ${key}` };
  const feedBefore = await owner.query<{ n: number }>(`select count(*)::int as n from events.feed where tenant_id = $1`, [tenantId]);
  const posted = performance.now();
  const created = await requestJson('POST', `${base}/api/v1/catalog/jobs`, auth, { type: 'import', source: { assetId } });
  let job = created;
  while (job.state !== 'succeeded' && job.state !== 'failed') {
    await sleep(200);
    job = await requestJson('GET', `${base}/api/v1/catalog/jobs/${created.jobId}`, auth);
  }
  const seenDone = performance.now();
  if (job.state !== 'succeeded') throw new Error(`the import failed: ${JSON.stringify(job.failure)}`);
  const runMs = Date.parse(job.finishedAt) - Date.parse(job.startedAt);
  // The job's events, all in the feed: the last entity event's arrival there after the job's end.
  const expected = job.counts.created + job.counts.updated;
  let feed = { events: 0, lastReceivedMs: 0 };
  const feedDeadline = Date.now() + 120_000;
  while (Date.now() < feedDeadline) {
    const { rows } = await owner.query<{ n: number; last: number | null }>(
      `select count(*)::int as n, extract(epoch from max(received_at)) * 1000 as last
         from events.feed where tenant_id = $1 and (body::jsonb ->> 'batchId') = $2 and type like 'entity.%'`,
      [tenantId, created.jobId],
    );
    feed = { events: rows[0]!.n, lastReceivedMs: Number(rows[0]!.last ?? 0) };
    if (feed.events >= expected) break;
    await sleep(200);
  }
  // job.succeeded through the API (polled within the feed's 60 requests a minute).
  let apiSeenMs = NaN;
  for (let polls = 0; polls < 50; polls += 1) {
    const page = await requestJson('GET', `${base}/api/v1/catalog/events?types=job.succeeded&limit=500`, auth);
    if (page.events.some((e: { batchId: string }) => e.batchId === created.jobId)) {
      apiSeenMs = performance.now() - seenDone;
      break;
    }
    await sleep(1_100);
  }
  const feedAfter = await owner.query<{ n: number }>(`select count(*)::int as n from events.feed where tenant_id = $1`, [tenantId]);
  return {
    counts: job.counts,
    errorCount: job.errorCount,
    jobRunMs: runMs,
    postToSeenSucceededMs: Math.round(seenDone - posted),
    rowsPerSecond: Math.round((ROWS / runMs) * 1000),
    rowsPerSecondFromPost: Math.round((ROWS / (seenDone - posted)) * 1000),
    entityEventsInFeed: feed.events,
    feedEventsAdded: feedAfter.rows[0]!.n - feedBefore.rows[0]!.n,
    lastEntityEventInFeedAfterJobEndMs: feed.events > 0 ? Math.round(feed.lastReceivedMs - Date.parse(job.finishedAt)) : null,
    jobSucceededReadThroughApiAfterSeenDoneMs: Math.round(apiSeenMs),
  };
}

async function importBench(): Promise<Record<string, unknown>> {
  const database = await createBenchDatabase('import');
  const work = mkdtempSync(join(tmpdir(), 'bench-import-'));
  const { env, adminToken } = await benchEnv(database, {
    DB_POOL_SIZE: '10',
    BLOB_BACKEND: 'fs',
    BLOB_DIR: join(work, 'blobs'),
    BLOB_SIGNING_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL: base,
  });
  const owner = new pg.Client({ connectionString: database.url });
  const processes: BenchProcess[] = [];
  try {
    processes.push(await startService('asset', env, GATEWAY + 2));
    processes.push(await startService('catalog', env, GATEWAY + 1));
    processes.push(await startService('events', env, GATEWAY + 4));
    // BENCH_IMPORT_LIBRARY=1: the library follows the import's entity events too, as in a deployment.
    if (process.env.BENCH_IMPORT_LIBRARY === '1') processes.push(await startService('library', env, GATEWAY + 5));
    processes.push(await startService('gateway', env, GATEWAY));
    await owner.connect();
    const api = apiClient(base, adminToken);
    const orgId = await api.organization({ name: 'Station moving in', products: ['catalog'] });
    const { key } = await api.apiKey(orgId, { permissions: ['catalog:api'] });
    const { assetId, bytes } = await uploadFile(key);
    const cpuBefore = Object.fromEntries(processes.map((p) => [p.name, processCpuMs(p.child.pid!)]));
    const first = await importOnce(owner, orgId, key, assetId);
    const cpuMs = Object.fromEntries(processes.map((p) => [p.name, processCpuMs(p.child.pid!) - cpuBefore[p.name]!]));
    const rerun = await importOnce(owner, orgId, key, assetId);
    return {
      rows: ROWS,
      library: process.env.BENCH_IMPORT_LIBRARY === '1',
      fileBytes: bytes,
      first: { ...first, cpuMs },
      rerun,
      peakRssMiB: Object.fromEntries(processes.map((p) => [p.name, p.peakRssMiB()])),
      memoryLimits: memoryLimits(processes),
    };
  } finally {
    await owner.end().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await database.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

const resultsFile = join(resultsDir, 'import.json');
let previous: Record<string, unknown> = {};
try {
  previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>;
} catch {
  // first run
}
const key = process.env.BENCH_IMPORT_LIBRARY === '1' ? 'importWithLibrary' : 'import';
const results = { ...previous, machine: machine(), at: new Date().toISOString(), [key]: await importBench() };
mkdirSync(resultsDir, { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results[key], null, 2));
console.log(`results in ${resultsFile}`);
process.exit(0);
