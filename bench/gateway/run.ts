/**
 * bench/gateway: the gateway path (HTTP → gateway → NATS → catalog → Postgres) against a single
 * process serving the catalog's own operations straight on Postgres, in one run, autocannon with
 * 64 connections: (1) GET one entity, (2) POST one entity (its outbox row included on both sides).
 * Then (3) how long a revocation through one gateway replica takes to be refused by a second one
 * (decision 0070). Results: bench/results/gateway.json and tables on stdout.
 *
 * Needs DATABASE_URL and NATS_URL (scripts/bench.sh starts them) and built services (`npm run build`).
 */
import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  machine,
  memoryLimits,
  processCpuMs,
  repoRoot,
  startProcess,
  startService,
  waitReady,
  type BenchProcess,
} from '../support/processes.js';
import { apiClient } from '@catalog/testing';
import { SERVICE_NODE_FLAGS } from '@catalog/platform';
import { chartMemoryLimit } from '../../test/support/memory-cap.js';
import { memoryCgroup, type MemoryCgroup } from '../support/memory-cgroup.js';
import { benchEnv, createBenchDatabase, fetchJson } from '../support/setup.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const WARMUP_S = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const REVOCATIONS = Number(process.env.BENCH_REVOCATIONS ?? 50);
const GATEWAY = 'http://127.0.0.1:18180';
const SECOND_GATEWAY = 'http://127.0.0.1:18182';
const BASELINE = 'http://127.0.0.1:18190';

interface Load {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  requests: number;
  failures: number;
}

interface Services {
  gateway: BenchProcess;
  catalog: BenchProcess;
  baseline: BenchProcess;
}

interface Target {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

async function load(base: string, target: Target, duration: number): Promise<Load> {
  const result = await autocannon({
    url: `${base}${target.path}`,
    method: target.method,
    headers: target.headers,
    ...(target.body ? { body: target.body } : {}),
    connections: CONNECTIONS,
    duration,
    pipelining: 1,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

const cpuMs = (child: BenchProcess): number => processCpuMs(child.child.pid!);

/** `run`, with the CPU time each of `processes` spent per request during it (µs): steadier than req/s on a loaded machine. */
async function withCpu(processes: Record<string, BenchProcess>, run: () => Promise<Load>) {
  const before = Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, cpuMs(child)]));
  const result = await run();
  const cpuMicrosPerRequest = Object.fromEntries(
    Object.entries(processes).map(([name, child]) => [name, Math.round(((cpuMs(child) - before[name]!) * 1000) / result.requests)]),
  );
  return { ...result, cpuMicrosPerRequest };
}

/** Least throughput of the gateway path, as a share of the single process's, per operation. */
const RATIO_TARGETS = { read: 0.7, create: 0.9 } as const;

/** One operation through the gateway and on the single process, warm-ups first, then one after the other. */
async function compare(services: Services, throughGateway: Target, onBaseline: Target, ratioTarget: number) {
  await load(GATEWAY, throughGateway, WARMUP_S);
  await load(BASELINE, onBaseline, WARMUP_S);
  const gatewayPath = await withCpu({ gateway: services.gateway, catalog: services.catalog }, () =>
    load(GATEWAY, throughGateway, DURATION_S),
  );
  const singleProcess = await withCpu({ baseline: services.baseline, catalog: services.catalog }, () =>
    load(BASELINE, onBaseline, DURATION_S),
  );
  const ratio = Math.round((gatewayPath.requestsPerSecond / singleProcess.requestsPerSecond) * 1000) / 1000;
  const p99Factor = Math.round((gatewayPath.latencyP99Ms / singleProcess.latencyP99Ms) * 100) / 100;
  return { gatewayPath, singleProcess, throughputRatio: ratio, p99Factor, met: { throughput: ratio >= ratioTarget, p99: p99Factor <= 2 } };
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number): number => Math.round(ms * 10) / 10;

/**
 * From the answer of a key's revocation through the first gateway to the first 401 of the second
 * replica, `samples` times, each on a key the second replica had time to load into memory.
 */
async function revocationToRefusal(adminToken: string, orgId: string, path: string, samples: number) {
  const admin = apiClient(GATEWAY, adminToken);
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const { keyId, key } = await admin.apiKey(orgId, { name: `revoked ${i}` });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = await fetch(`${SECOND_GATEWAY}${path}`, { headers: { authorization: `Bearer ${key}` } });
    await before.arrayBuffer();
    if (before.status !== 200) throw new Error(`the second gateway answered ${before.status} before the revocation`);
    const revoked = await admin.admin('DELETE', `/admin/v1/api-keys/${keyId}`);
    if (revoked.status !== 204) throw new Error(`revocation answered ${revoked.status}`);
    const answered = performance.now();
    for (;;) {
      const response = await fetch(`${SECOND_GATEWAY}${path}`, { headers: { authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      if (response.status === 401) break;
    }
    times.push(performance.now() - answered);
  }
  times.sort((a, b) => a - b);
  return { samples, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)), maxMs: round(times[times.length - 1]!) };
}

/** A tenant with 1,000 entities made through the gateway; the id of the 501st. */
async function seed(auth: Record<string, string>): Promise<string> {
  let entityId = '';
  for (let i = 0; i < 1000; i += 1) {
    const entity = await fetchJson(`${GATEWAY}/api/v1/catalog/entities`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'song', title: `Track ${i}`, artist: 'Bench Band' }),
    });
    if (i === 500) entityId = entity.id;
  }
  return entityId;
}

type Comparison = Awaited<ReturnType<typeof compare>>;

/** Writes the results' JSON and prints the tables. */
function report(results: { read: Comparison; create: Comparison } & Record<string, unknown>): void {
  mkdirSync(join(repoRoot, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(repoRoot, 'bench', 'results', process.env.BENCH_RESULT_NAME ?? 'gateway.json'),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  const { read, create } = results;
  console.table({
    'read, gateway path': read.gatewayPath,
    'read, single process': read.singleProcess,
    'create, gateway path': create.gatewayPath,
    'create, single process': create.singleProcess,
  });
  const summary = (c: Comparison) => ({
    ratio: c.throughputRatio,
    p99Factor: c.p99Factor,
    met: c.met,
    cpuMicrosPerRequest: { gatewayPath: c.gatewayPath.cpuMicrosPerRequest, singleProcess: c.singleProcess.cpuMicrosPerRequest },
  });
  console.log(
    JSON.stringify({
      read: summary(read),
      create: summary(create),
      revocation: results.revocationToRefusalOnSecondReplica,
      loadAverage: results.loadAverage,
    }),
  );
}

/**
 * The single process runs the catalog's operations, so it runs under the catalog's chart limit as
 * the catalog does: V8 sizes its young generation from that limit (a 1 MiB semi-space under
 * 384 MiB, 16 MiB or more without one), and a baseline without it collected garbage far less often
 * than the two processes it is compared with. None with BENCH_MEMORY_LIMIT=none or no writable cgroup.
 */
function baselineCgroup(): MemoryCgroup | null {
  if (process.env.BENCH_MEMORY_LIMIT === 'none') return null;
  try {
    return memoryCgroup(`bench-${process.pid}-baseline`, chartMemoryLimit('catalog'));
  } catch {
    return null;
  }
}

/** Catalog and gateway, a tenant with 1,000 entities, the single process for it: the read's path. */
async function setUp(env: Record<string, string>, adminToken: string, processes: BenchProcess[]) {
  const catalog = await startService('catalog', env, 18181);
  processes.push(catalog);
  const gateway = await startService('gateway', env, 18180);
  processes.push(gateway);
  const { orgId, key } = await apiClient(GATEWAY, adminToken).tenant({ name: 'Bench FM' });
  const auth = { authorization: `Bearer ${key}` };
  const read = `/api/v1/catalog/entities/${await seed(auth)}`;
  const baselineEnv = { ...env, PORT: '18190', BENCH_TENANT_ID: orgId };
  const baseline = startProcess(
    'baseline',
    'bench/gateway/baseline-server.ts',
    baselineEnv,
    ['--conditions=source', '--import', 'tsx'],
    SERVICE_NODE_FLAGS,
    baselineCgroup(),
  );
  processes.push(baseline);
  await waitReady(`${BASELINE}${read}`);
  return { services: { gateway, catalog, baseline }, orgId, auth, read };
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL) throw new Error('DATABASE_URL and NATS_URL are required (run via npm run bench)');
  const database = await createBenchDatabase('gateway');
  const { env, adminToken } = await benchEnv(database, { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', DB_POOL_SIZE: '20' });
  const processes: BenchProcess[] = [];
  try {
    const { services, orgId, auth, read } = await setUp(env, adminToken, processes);
    const loadBefore = loadavg();
    const readResult = await compare(
      services,
      { path: read, method: 'GET', headers: auth },
      { path: read, method: 'GET', headers: {} },
      RATIO_TARGETS.read,
    );
    const body = JSON.stringify({ type: 'song', title: 'Bench create', artist: 'Bench Band' });
    const json = { 'content-type': 'application/json' };
    const create = '/api/v1/catalog/entities';
    const createResult = await compare(
      services,
      { path: create, method: 'POST', headers: { ...auth, ...json }, body },
      { path: create, method: 'POST', headers: json, body },
      RATIO_TARGETS.create,
    );
    const loadAfter = loadavg();
    const { gateway, catalog, baseline } = services;
    const peakRssMiB = { gateway: gateway.peakRssMiB(), catalog: catalog.peakRssMiB(), baseline: baseline.peakRssMiB() };
    processes.push(await startService('gateway', env, 18182));
    const revocation = await revocationToRefusal(adminToken, orgId, read, REVOCATIONS);
    report({
      benchmark: 'gateway',
      date: new Date().toISOString(),
      machine: machine(),
      loadAverage: { before: loadBefore.map(round), after: loadAfter.map(round) },
      settings: { connections: CONNECTIONS, durationSeconds: DURATION_S, logLevel: env.LOG_LEVEL, dbPoolSize: Number(env.DB_POOL_SIZE) },
      read: readResult,
      create: createResult,
      revocationToRefusalOnSecondReplica: revocation,
      peakRssMiB,
      memoryLimits: memoryLimits([gateway, catalog, baseline]),
      targets: { throughputRatioAtLeast: RATIO_TARGETS, p99AtMostTimesSingleProcess: 2, revocationBelowMs: 1000 },
    });
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await database.drop();
  }
}

await main();
