/**
 * bench/gateway: GET one entity through the gateway (HTTP → NATS → catalog → Postgres) against the
 * same read served by a single-process Koa handler straight on Postgres, in one run, autocannon
 * with 64 connections. Results: bench/results/gateway.json and a table on stdout.
 *
 * Needs DATABASE_URL and NATS_URL (scripts/bench.sh starts them) and built services (`npm run build`).
 */
import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, repoRoot, startProcess, startService, waitReady, type BenchProcess } from '../support/processes.js';
import { apiClient } from '@catalog/testing';
import { benchEnv, createBenchDatabase, fetchJson } from '../support/setup.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const WARMUP_S = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);

async function load(url: string, headers: Record<string, string>, duration: number) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers, pipelining: 1 });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return {
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    requests: result.requests.total,
    failures: non2xx,
  };
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL) throw new Error('DATABASE_URL and NATS_URL are required (run via npm run bench)');
  const database = await createBenchDatabase('gateway');
  const { env, adminToken } = await benchEnv(database, { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', DB_POOL_SIZE: '20' });
  const processes: BenchProcess[] = [];
  try {
    const catalog = await startService('catalog', env, 18181);
    processes.push(catalog);
    const gateway = await startService('gateway', env, 18180);
    processes.push(gateway);

    const { orgId, key } = await apiClient('http://127.0.0.1:18180', adminToken).tenant({ name: 'Bench FM' });
    const auth = { authorization: `Bearer ${key}` };
    let entityId = '';
    for (let i = 0; i < 1000; i += 1) {
      const entity = await fetchJson('http://127.0.0.1:18180/api/v1/catalog/entities', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'song', title: `Track ${i}`, artist: 'Bench Band' }),
      });
      if (i === 500) entityId = entity.id;
    }

    const baseline = startProcess('baseline', 'bench/gateway/baseline-server.ts', { ...env, PORT: '18190', BENCH_TENANT_ID: orgId }, [
      '--conditions=source',
      '--import',
      'tsx',
    ]);
    processes.push(baseline);
    await waitReady(`http://127.0.0.1:18190/api/v1/catalog/entities/${entityId}`);

    const gatewayUrl = `http://127.0.0.1:18180/api/v1/catalog/entities/${entityId}`;
    const baselineUrl = `http://127.0.0.1:18190/api/v1/catalog/entities/${entityId}`;
    await load(gatewayUrl, auth, WARMUP_S);
    await load(baselineUrl, {}, WARMUP_S);
    const throughGateway = await load(gatewayUrl, auth, DURATION_S);
    const singleProcess = await load(baselineUrl, {}, DURATION_S);
    const ratio = Math.round((throughGateway.requestsPerSecond / singleProcess.requestsPerSecond) * 1000) / 1000;
    const results = {
      benchmark: 'gateway',
      date: new Date().toISOString(),
      machine: machine(),
      settings: { connections: CONNECTIONS, durationSeconds: DURATION_S, logLevel: env.LOG_LEVEL, dbPoolSize: Number(env.DB_POOL_SIZE) },
      gatewayPath: throughGateway,
      singleProcess,
      throughputRatio: ratio,
      peakRssMiB: { gateway: gateway.peakRssMiB(), catalog: catalog.peakRssMiB(), baseline: baseline.peakRssMiB() },
      targets: { throughputRatioAtLeast: 0.5, gatewayP99BelowMs: 25 },
      met: { throughput: ratio >= 0.5, p99: throughGateway.latencyP99Ms < 25 },
    };
    mkdirSync(join(repoRoot, 'bench', 'results'), { recursive: true });
    writeFileSync(
      join(repoRoot, 'bench', 'results', process.env.BENCH_RESULT_NAME ?? 'gateway.json'),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    console.table({ 'gateway path': throughGateway, 'single process': singleProcess });
    console.log(JSON.stringify({ throughputRatio: ratio, met: results.met }));
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await database.drop();
  }
}

await main();
