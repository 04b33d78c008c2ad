/**
 * bench/accuracy: `npm run bench -- accuracy`. Key and tempo of the project's analyzers and of
 * Essentia (KeyExtractor with the edma, temperley and krumhansl profiles; RhythmExtractor2013) on
 * the same files in one run: the key score (mir_eval's), exact key, tempo Acc1 and Acc2.
 * By default it reads the evaluation sets (evaluate.ts; BENCH_ACCURACY_SETS picks some), prints
 * them beside the targets and logs the read in docs/benchmarks.md. BENCH_ACCURACY_SPLITS=tuning
 * (or tuning,validation) scores the tuning corpus instead (corpus.ts), per split, sound font and
 * degradation, with accuracy above and below each system's median confidence; that is what design
 * choices may look at, and its results stay in the cache.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, repoRoot } from '../support/processes.js';
import { corpus, SPLITS, type Split } from './corpus.js';
import { evaluate } from './evaluate.js';
import { catalogEstimates, durations, essentiaEstimates, SYSTEMS, type Estimates } from './estimators.js';
import { renderPieces, cacheRoot } from './render.js';
import { printTables } from './report.js';
import { confidenceSplit, groupsOf, keyCorrect, scoreGroup, tempoCorrect, type Scored } from './summary.js';

const log = (line: string) => process.stderr.write(`[accuracy] ${line}\n`);
const python = execFileSync('bash', [join(repoRoot, 'bench/accuracy/setup.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  .trim()
  .split('\n')
  .at(-1)!;
if (process.env.BENCH_ACCURACY_SPLITS) await scoreSplits(process.env.BENCH_ACCURACY_SPLITS.split(',') as Split[]);
else await evaluate(python, join(cacheRoot(), '..', 'evaluation'), log);

/** The tuning corpus's splits, for design choices: never the evaluation sets. */
async function scoreSplits(splits: Split[]): Promise<void> {
  if (!splits.every((split) => (SPLITS as readonly string[]).includes(split)))
    throw new Error(`BENCH_ACCURACY_SPLITS: ${splits} (${SPLITS.join(', ')})`);
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
  // The tuning corpus's scores are not the benchmark's result: they stay in the cache.
  const out = join(cacheRoot(), `accuracy-${splits.join('-')}.json`);
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  printTables(systems);
  log(`results: ${out}`);
}
