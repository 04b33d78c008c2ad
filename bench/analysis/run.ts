/**
 * bench/analysis: `npm run bench -- analysis` runs both parts, each writing its JSON to
 * bench/results/:
 *   engine   the analysis engine on a 5-minute file, each analyzer alone and all in one pass,
 *            against ffmpeg's loudness pass (engine.ts, analysis.json);
 *   workers  4 worker processes drain 100 one-minute jobs queued through the gateway, none lost
 *            (workers.ts, analysis-workers.json; BENCH_ANALYSIS_JOBS sets the number of jobs for a
 *            short run, BENCH_ANALYSIS_WORKERS the workers).
 * BENCH_ANALYSIS_PART=engine|workers runs one of them (default: both).
 */
import { engineBench } from './engine.js';
import { workersBench } from './workers.js';

const part = process.env.BENCH_ANALYSIS_PART ?? 'all';
if (!['engine', 'workers', 'all'].includes(part)) throw new Error(`BENCH_ANALYSIS_PART must be engine, workers or all, not ${part}`);
if (part === 'engine' || part === 'all') await engineBench();
if (part === 'workers' || part === 'all') {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL)
    throw new Error('DATABASE_URL and NATS_URL are required (run via npm run bench -- analysis)');
  await workersBench();
}
