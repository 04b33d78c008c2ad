/**
 * bench/accuracy: `npm run bench -- accuracy`. Key and tempo of the project's analyzers and of
 * Essentia (KeyExtractor with the edma, temperley and krumhansl profiles; RhythmExtractor2013) on
 * the same generated, degraded pieces (corpus.ts, render.ts), in one run: MIREX key score and exact
 * key, tempo Acc1 and Acc2, per split, sound font and degradation, time per file, and accuracy
 * above and below each system's median confidence. Results: bench/results/accuracy.json and a
 * printed table (docs/benchmarks.md). BENCH_ACCURACY_SPLITS=tuning reads the tuning split only
 * (what tuning may look at); the held-out split is read by this benchmark alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, repoRoot } from '../support/processes.js';
import { corpus, SPLITS, type Split } from './corpus.js';
import { catalogEstimates, durations, essentiaEstimates, SYSTEMS, type Estimates } from './estimators.js';
import { renderPieces, cacheRoot } from './render.js';
import { printTables } from './report.js';
import { confidenceSplit, groupsOf, keyCorrect, scoreGroup, tempoCorrect, type Scored } from './summary.js';

const splits = (process.env.BENCH_ACCURACY_SPLITS ?? SPLITS.join(',')).split(',') as Split[];
if (!splits.every((split) => (SPLITS as readonly string[]).includes(split)))
  throw new Error(`BENCH_ACCURACY_SPLITS: ${splits} (tuning, heldout)`);
const log = (line: string) => process.stderr.write(`[accuracy] ${line}\n`);

const python = execFileSync('bash', [join(repoRoot, 'bench/accuracy/setup.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  .trim()
  .split('\n')
  .at(-1)!;
const pieces = corpus(splits);
const files = await renderPieces(pieces, log);
const list = pieces.map((piece) => files.get(piece.id)!);
log(`the project's analyzers on ${list.length} files`);
const estimates: Estimates = { catalog: await catalogEstimates(list) };
log(`Essentia on ${list.length} files (cached in ${cacheRoot()})`);
Object.assign(estimates, await essentiaEstimates(python, list, cacheRoot()));

const scoredBy = (system: string): Scored[] =>
  pieces.map((piece) => {
    const file = files.get(piece.id)!;
    return { piece, estimate: estimates[system]!.get(file)!, audioSeconds: durations.get(file) ?? 0 };
  });
const systems = Object.fromEntries(
  SYSTEMS.map((system) => {
    const scored = scoredBy(system);
    const groups = Object.fromEntries(groupsOf(pieces).map(([name, test]) => [name, scoreGroup(scored.filter((s) => test(s.piece)))]));
    const confidence = {
      key: confidenceSplit(scored, (e) => e.keyStrength, keyCorrect),
      tempo: confidenceSplit(scored, (e) => e.tempoConfidence, tempoCorrect),
    };
    return [system, { groups, confidence }];
  }),
);
const report = {
  benchmark: 'accuracy',
  at: new Date().toISOString(),
  machine: machine(),
  splits,
  pieces: pieces.length,
  cache: cacheRoot(),
  systems,
  misses: pieces
    .filter((piece) => !keyCorrect(scoredBy('catalog').find((s) => s.piece === piece)!))
    .map((piece) => ({
      id: piece.id,
      degradation: piece.degradation,
      truth: piece.truth,
      estimate: estimates.catalog!.get(files.get(piece.id)!),
    })),
};
mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
// A run of some splits only is not the benchmark's result: it stays in the cache.
const out =
  splits.length === SPLITS.length ? join(repoRoot, 'bench/results/accuracy.json') : join(cacheRoot(), `accuracy-${splits.join('-')}.json`);
writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
printTables(systems);
log(`results: ${out}`);
