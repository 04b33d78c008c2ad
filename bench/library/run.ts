/**
 * Library benchmarks (bench/library). Results: bench/results/library.json and a summary on stdout.
 *
 *   search  GET /api/v1/library/tracks with `q` (a word prefix) plus two filters (a 20-BPM range
 *           and entityType) through the gateway, BENCH_SEARCH_REQUESTS (1,000) one after the other,
 *           in the largest of BENCH_LIBRARY_TENANTS (10) tenants holding BENCH_LIBRARY_TRACKS
 *           (400,000) tracks together, half of them in that one (a station group: 1,000,000 in 100),
 *           loaded straight into library.tracks with generate_series (its trigger fills
 *           library.track_words) in a session that commits synchronously, then vacuumed
 *   lag     projection lag: entity title changes through the gateway at BENCH_LAG_RATE (200/s,
 *           open loop) for BENCH_LAG_SECONDS (30) over 200 tracks; one write in ten goes to one of
 *           20 probe tracks, and the time from sending it to its title being in library.tracks is
 *           measured (seen by a NOTIFY trigger at commit; a later probe's title counts as seen),
 *           in the largest tenant of a library loaded as for the search,
 *           after BENCH_LAG_WARMUP_SECONDS (10) of warm-up writes. The writes start once the 220
 *           files' automatic analyses are over. Each probe's lag is split into its stages
 *           (probes.ts), and BENCH_LAG_RATES (a list, e.g. 300,400,500) measures again at each
 *           of those rates (`byRate`).
 *
 * BENCH_LIBRARY_KEEP names a file: the search's loaded database is kept and the file records it
 * (database name and tenants' keys); a later search run with the same file reuses that database
 * (the services apply any new migration) instead of loading again (minutes at 1,000,000 tracks).
 * Drop it by hand when done (`drop database <name>`).
 *
 * `node --conditions=source --import tsx bench/library/run.ts [search|lag]` with DATABASE_URL and
 * NATS_URL set (or `npm run bench -- library`), after `npm run build`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { apiClient, sineWav, testCredentials, type TestDatabase } from '@catalog/testing';
import { machine, processCpuMs, programCpuMs, repoRoot, startService, type BenchProcess } from '../support/processes.js';
import { leanHttpClient } from '../support/lean-http.js';
import { percentiles } from '../support/percentiles.js';
import { benchEnv, createBenchDatabase } from '../support/setup.js';
import { lagStages, probeWatcher, type ProbeTimes } from './probes.js';
import { librarySize, loadLibrary, vocabulary } from './load.js';

if (!process.env.DATABASE_URL || !process.env.NATS_URL) throw new Error('DATABASE_URL and NATS_URL are required');
const resultsDir = join(repoRoot, 'bench', 'results');

async function createTenants(api: ReturnType<typeof apiClient>, count: number): Promise<Array<{ tenantId: string; key: string }>> {
  const tenants = [];
  for (let t = 0; t < count; t += 1) {
    const orgId = await api.organization({ name: `Station ${t}`, products: ['catalog', 'library'] });
    tenants.push({ tenantId: orgId, key: (await api.apiKey(orgId, { permissions: ['catalog:api', 'library:api'] })).key });
  }
  return tenants;
}

/** BENCH_SEARCH_REQUESTS searches one after the other (after 50 to warm up): `q` (a word, or its prefix) + a 20-BPM range + entityType. */
async function searchRun(base: string, key: string, words: string[], prefix: (word: string) => string) {
  const REQUESTS = Number(process.env.BENCH_SEARCH_REQUESTS ?? 1000);
  const latencies: number[] = [];
  const found: number[] = [];
  for (let i = -50; i < REQUESTS; i += 1) {
    const word = words[((i + 50) * 7919) % words.length]!;
    const bpmMin = 70 + (((i + 50) * 13) % 80);
    const url = `${base}/api/v1/library/tracks?q=${prefix(word)}&bpmMin=${bpmMin}&bpmMax=${bpmMin + 20}&entityType=song`;
    const start = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { tracks: unknown[] };
    if (response.status !== 200) throw new Error(`search: ${response.status} ${JSON.stringify(body)}`);
    if (i >= 0) {
      latencies.push(performance.now() - start);
      found.push(body.tracks.length);
    }
  }
  return { requests: REQUESTS, pageSizes: percentiles(found), latencyMs: percentiles(latencies) };
}

/** A database kept by an earlier search run (BENCH_LIBRARY_KEEP): its name and the tenants' keys. */
interface KeptSearch {
  database: string;
  tenants: Array<{ tenantId: string; key: string }>;
}

/** The kept database as the benchmark's support reads one (never dropped here). */
function keptDatabase(name: string): TestDatabase {
  const at = (role?: string) => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    if (role) [url.username, url.password] = [role, testCredentials().postgresPassword(role)];
    return url.toString();
  };
  return { name, url: at(), urlAs: at, drop: async () => undefined };
}

async function searchBench(): Promise<Record<string, unknown>> {
  const keep = process.env.BENCH_LIBRARY_KEEP;
  const kept: KeptSearch | null = keep && existsSync(keep) ? JSON.parse(readFileSync(keep, 'utf8')) : null;
  const database = kept ? keptDatabase(kept.database) : await createBenchDatabase('library_search');
  const { env, adminToken } = await benchEnv(database, { DB_POOL_SIZE: '10' });
  const owner = new pg.Client({ connectionString: database.url });
  const processes: BenchProcess[] = [];
  try {
    processes.push(await startService('library', env, 18485));
    processes.push(await startService('gateway', env, 18480));
    const base = 'http://127.0.0.1:18480';
    const size = librarySize();
    const tenants = kept?.tenants ?? (await createTenants(apiClient(base, adminToken), size.tenants));
    const words = vocabulary();
    await owner.connect();
    const loaded = kept
      ? { reusedDatabase: true }
      : await loadLibrary(
          owner,
          tenants.map((t) => t.tenantId),
          size.tracks,
          words,
        );
    if (keep && !kept) writeFileSync(keep, JSON.stringify({ database: database.name, tenants } satisfies KeptSearch));
    // With each run, the CPU the library and the gateway spent per search (µs): steadier than
    // latency on a loaded machine (Postgres's is not separable from other work on its server).
    const search = async (prefix: (word: string) => string) => {
      const before = processes.map((p) => processCpuMs(p.child.pid!));
      const run = await searchRun(base, tenants[0]!.key, words, prefix);
      const cpuMicrosPerSearch = Object.fromEntries(
        processes.map((p, i) => [p.name, Math.round(((processCpuMs(p.child.pid!) - before[i]!) * 1000) / (run.requests + 50))]),
      );
      return { ...run, cpuMicrosPerSearch };
    };
    return {
      ...size,
      ...loaded,
      word: await search((w) => w),
      prefix3: await search((w) => w.slice(0, 3)),
    };
  } finally {
    await owner.end().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    if (!keep) await database.drop();
  }
}

/** Creates `count` songs with an uploaded, confirmed audio file each (tracks once projected). */
async function createTracks(base: string, key: string, count: number): Promise<string[]> {
  const wav = await sineWav(0.2);
  const checksum = `sha256:${createHash('sha256').update(wav).digest('hex')}`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = async (path: string, body?: unknown): Promise<any> => {
    const init =
      body === undefined
        ? { method: 'POST', headers: { authorization: headers.authorization } }
        : { method: 'POST', headers, body: JSON.stringify(body) };
    const response = await fetch(`${base}${path}`, init);
    // A confirmation still verifying its upload answers 503 with Retry-After (decision 0148): ask again then.
    const wait = response.status === 503 ? Number(response.headers.get('retry-after')) : 0;
    if (wait > 0) return new Promise((resolve) => setTimeout(resolve, wait * 1000)).then(() => post(path, body));
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<any>;
  };
  const ids: string[] = [];
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, (_, k) => ({ type: 'song', title: `Song ${start + k}` }));
    ids.push(...(await post('/api/v1/catalog/entities/batch', { entities: batch })).entities.map((e: { id: string }) => e.id));
  }
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const upload = { filename: 'a.wav', contentType: 'audio/wav', size: wav.length, checksum };
        const version = await post(`/api/v1/catalog/entities/${id}/versions`, {
          source: { upload },
          label: 'Main',
          versionType: 'radio_edit',
        });
        await fetch(version.upload.url, { method: 'PUT', headers: version.upload.headers, body: wav });
        await post(`/api/v1/catalog/assets/${version.asset.id}/confirm`);
      }
    }),
  );
  return ids;
}

/** This machine's wall clock in ms with sub-ms precision, comparable with Postgres's timestamps. */
const wallClock = () => performance.timeOrigin + performance.now();

/** CPU time used so far (ms) by each service, Postgres, nats-server and this load generator. */
function cpuUse(processes: BenchProcess[]): Record<string, number> {
  const own = process.cpuUsage();
  return {
    ...Object.fromEntries(processes.map((p) => [p.name, processCpuMs(p.child.pid!)])),
    postgres: programCpuMs('postgres'),
    nats: programCpuMs('nats-server'),
    loadGenerator: (own.user + own.system) / 1000,
  };
}

/** Waits until no analysis job is queued or running, then 2 s more for the track updates they bring. */
async function settleAnalyses(owner: pg.Client): Promise<void> {
  const pending = async () =>
    Number((await owner.query(`select count(*) as n from analysis.jobs where status in ('QUEUED', 'RUNNING')`)).rows[0].n);
  while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 2000));
}

async function lagBench(): Promise<Record<string, unknown>> {
  const database = await createBenchDatabase('library_lag');
  const blobs = mkdtempSync(join(tmpdir(), 'library-bench-blobs-'));
  const { env, adminToken } = await benchEnv(database, {
    DB_POOL_SIZE: '10',
    BLOB_BACKEND: 'fs',
    BLOB_DIR: blobs,
    BLOB_SIGNING_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL: 'http://127.0.0.1:18480',
  });
  const owner = new pg.Client({ connectionString: database.url });
  const listener = new pg.Client({ connectionString: database.url });
  const processes: BenchProcess[] = [];
  try {
    processes.push(await startService('gateway', env, 18480));
    for (const [name, port] of [
      ['catalog', 18481],
      ['asset', 18482],
      // The projection reads a file's analysis facts from the analysis service (decision 0102).
      ['analysis', 18483],
      ['library', 18485],
    ] as const)
      processes.push(await startService(name, env, port));
    const base = 'http://127.0.0.1:18480';
    const size = librarySize();
    const tenants = await createTenants(apiClient(base, adminToken), size.tenants);
    const tenant = tenants[0];
    const ids = await createTracks(base, tenant!.key, 220);
    await owner.connect();
    await listener.connect();
    const loaded = await loadLibrary(
      owner,
      tenants.map((t) => t.tenantId),
      size.tracks,
      vocabulary(),
    );
    const titlesOf = async (list: string[]): Promise<Map<string, string>> =>
      new Map(
        (
          await owner.query<{ entity_id: string; title: string }>(
            'select entity_id, summary->>$2 as title from library.tracks where entity_id = any($1::uuid[])',
            [list, 'title'],
          )
        ).rows.map((r) => [r.entity_id, r.title]),
      );
    while ((await titlesOf(ids)).size < ids.length) await new Promise((r) => setTimeout(r, 50));
    // The automatic analyses of the 220 files (and the track updates they bring) are over before the writes start.
    await settleAnalyses(owner);
    const probes = await probeWatcher(owner, listener);
    const RATE = Number(process.env.BENCH_LAG_RATE ?? 200);
    // BENCH_LAG_RATES (e.g. 300,400,500) adds a measured phase at each of those rates, after the one at RATE.
    const sweep = (process.env.BENCH_LAG_RATES ?? '').split(',').filter(Boolean).map(Number);
    const SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 30);
    const WARMUP_SECONDS = Number(process.env.BENCH_LAG_WARMUP_SECONDS ?? 10);
    const headers = { authorization: `Bearer ${tenant!.key}` };
    // The writes go through the lean client: node:http's took the generator about 0.8 ms of CPU each.
    const client = leanHttpClient(base);
    /**
     * Writes `count` title changes at `rate` per second, open loop, numbered from `first` (one in
     * ten a probe's); resolves once every write is answered and every probe seen, with the probes' lags.
     */
    const writePhase = async (first: number, count: number, rate: number) => {
      const probeTimes: ProbeTimes[] = [];
      const writes: Promise<void>[] = [];
      let failures = 0;
      const startedAt = performance.now();
      for (let n = first; n < first + count; n += 1) {
        const due = startedAt + ((n - first) * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const probe = n % 10 === 0;
        const id = probe ? ids[200 + ((n / 10) % 20)]! : ids[n % 200]!;
        const title = `${probe ? 'Probe' : 'Load'} ${n}`;
        writes.push(
          (async () => {
            const sent = wallClock();
            const ok = await client
              .request('PATCH', `/api/v1/catalog/entities/${id}`, headers, { title })
              .then((answer) => answer.status === 200)
              .catch(() => false);
            if (!ok) {
              failures += 1;
              return;
            }
            if (!probe) return;
            await probes.seen(id, n);
            probeTimes.push({ entityId: id, sent, seen: wallClock() });
          })(),
        );
      }
      await Promise.all(writes);
      return { probeTimes, failures, startedAt, seconds: (performance.now() - startedAt) / 1000 };
    };
    /** One measured phase at `rate`: the probes' lags, the CPU each process spent a write, the stages after it. */
    const measure = async (first: number, rate: number) => {
      const cpuBefore = cpuUse(processes);
      const phase = await writePhase(first, rate * SECONDS, rate);
      const cpu = cpuUse(processes);
      const cpuMsPerWrite = Object.fromEntries(
        Object.entries(cpu).map(([name, ms]) => [name, Math.round(((ms - cpuBefore[name]!) / (rate * SECONDS)) * 100) / 100]),
      );
      const busy = Object.values(cpu).reduce((sum, ms) => sum + ms, 0) - Object.values(cpuBefore).reduce((sum, ms) => sum + ms, 0);
      const result = {
        rate,
        seconds: Math.round(phase.seconds * 10) / 10,
        writes: rate * SECONDS,
        failures: phase.failures,
        lagMs: percentiles(phase.probeTimes.map((p) => p.seen - p.sent)),
        stagesMs: await lagStages(owner, phase.probeTimes),
        cpuMsPerWrite,
        cpuShareOfMachine: Math.round((busy / (phase.seconds * 1000 * cpus().length)) * 100) / 100,
      };
      // Each probe's send time (ms into the phase) and lag.
      const trace = phase.probeTimes.map(
        (p) => `${Math.round(p.sent - (performance.timeOrigin + phase.startedAt))} ${Math.round(p.seen - p.sent)}`,
      );
      return { trace, result };
    };
    // Warm-up: the PATCH path and the projection's run their first writes (JIT, plans, caches) as
    // in a service that has been up a while; the measured writes start once it has caught up.
    const warmup = RATE * WARMUP_SECONDS;
    if (warmup > 0) {
      await writePhase(0, warmup, RATE);
      await new Promise((r) => setTimeout(r, 2000));
    }
    const { trace, result } = await measure(warmup, RATE);
    // BENCH_LAG_TRACE names a file for each probe's send time (ms into the measured writes) and lag.
    if (process.env.BENCH_LAG_TRACE) writeFileSync(process.env.BENCH_LAG_TRACE, trace.join('\n'));
    const byRate = [];
    let next = warmup + RATE * SECONDS;
    for (const rate of sweep) {
      // After a pause to catch up; numbered on from a multiple of ten, so one write in ten stays a probe's.
      next = Math.ceil(next / 10) * 10;
      await new Promise((r) => setTimeout(r, 2000));
      byRate.push((await measure(next, rate)).result);
      next += rate * SECONDS;
    }
    client.close();
    return {
      ...result,
      warmupSeconds: WARMUP_SECONDS,
      writtenTracks: 220,
      ...size,
      ...loaded,
      ...(byRate.length > 0 ? { byRate } : {}),
    };
  } finally {
    await owner.end().catch(() => undefined);
    await listener.end().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await database.drop();
    rmSync(blobs, { recursive: true, force: true });
  }
}

const which = process.argv[2];
mkdirSync(resultsDir, { recursive: true });
const resultFile = join(resultsDir, 'library.json');
// Each part replaces its own key of the results file.
const results: Record<string, unknown> = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : {};
Object.assign(results, { machine: machine() });
if (!which || which === 'search') results.search = { date: new Date().toISOString(), ...(await searchBench()) };
if (!which || which === 'lag') results.lag = { date: new Date().toISOString(), ...(await lagBench()) };
writeFileSync(resultFile, `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results, null, 2));
