/**
 * Events feed benchmarks (bench/events). Results: bench/results/events.json and a summary on stdout.
 *
 *   page  feed page latency (limit 500, with and without `types`) on BENCH_FEED_ROWS (1,000,000)
 *         events across BENCH_FEED_TENANTS (10), BENCH_FEED_LARGEST_ROWS of them in the first (a
 *         station group: 10,000,000, 10,000, 2,000,000), inserted with generate_series: GET
 *         /api/v1/catalog/events through the gateway, and the events service's `listEvents` over
 *         NATS; CPU per page, Postgres size and I/O; EXPLAIN ANALYZE of the page queries in
 *         bench/results/events-explain.txt
 *   e2e   (a) entity writes through the gateway for BENCH_E2E_SECONDS (60) with 32 concurrent
 *         writers → visible in the feed, once with one entity per request (POST entities), once
 *         with BENCH_E2E_BATCH_SIZE (20) per request (POST entities/batch), then batches at a fixed
 *         BENCH_E2E_SUSTAINED_RATE (2,500 events/s, open loop); (b) visibility latency at 500
 *         single writes/s (open loop, 30 s); BENCH_E2E_PHASES picks some; the events stream's size
 *
 * `node --conditions=source --import tsx bench/events/run.ts [page|e2e]` with DATABASE_URL and
 * NATS_URL set (or `npm run bench -- events`), after `npm run build`: the services run from their
 * built output as child processes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine } from '../support/processes.js';
import { e2eBench } from './e2e.js';
import { resultsDir } from './feed.js';
import { pageBench } from './page.js';

if (!process.env.DATABASE_URL || !process.env.NATS_URL)
  throw new Error('DATABASE_URL and NATS_URL are required (run via npm run bench -- events)');

const which = process.argv[2] ?? 'all';
const resultsFile = join(resultsDir, 'events.json');
let previous: Record<string, unknown> = {};
try {
  previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>;
} catch {
  // first run
}
const results: Record<string, unknown> = { ...previous, machine: machine(), at: new Date().toISOString() };
if (which === 'page' || which === 'all') results.page = await pageBench();
if (which === 'e2e' || which === 'all') results.e2e = await e2eBench();
mkdirSync(resultsDir, { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
console.log(`results in ${resultsFile}`);
process.exit(0);
