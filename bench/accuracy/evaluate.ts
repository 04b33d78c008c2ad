/**
 * bench/accuracy/evaluate.ts: one read of the evaluation sets (evaluation/sets.ts): the project's
 * analyzers and Essentia on the same files, scored per set (and per kind of piece within it), the
 * targets checked, our tempo's Acc1 over and under the confidence a station checks under, and the
 * read logged (read-log.ts). Only run.ts calls it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, repoRoot } from '../support/processes.js';
import { catalogEstimates, durations, essentiaEstimates, SYSTEMS, type Estimates } from './estimators.js';
import { evaluationPieces, EVALUATION_SETS, type EvaluationPiece, type EvaluationSet } from './evaluation/sets.js';
import { renderEvaluation } from './evaluation/render.js';
import { designOf, logRead } from './read-log.js';
import { printEvaluation, type SetResult } from './report.js';
import { confidenceSplit, scoreGroup, tempoCorrect, type Scored } from './summary.js';

/** The targets (per set): key ≥ Essentia's best profile + KEY_MARGIN; tempo Acc1 ≥ Essentia's and ≥ ACC1; Acc2 ≥ ACC2. */
export const TARGETS = { keyMargin: 0.05, acc1: 0.9, acc2: 0.98 };
/** The tempo confidence under which the accuracy page tells a station to check a BPM (chosen on tuning: tune.ts tempo). */
const CHECK_UNDER = 0.2;

export async function evaluate(python: string, cacheDir: string, log: (line: string) => void): Promise<void> {
  const sets = (process.env.BENCH_ACCURACY_SETS ?? EVALUATION_SETS.join(',')).split(',') as EvaluationSet[];
  if (!sets.every((set) => (EVALUATION_SETS as readonly string[]).includes(set)))
    throw new Error(`BENCH_ACCURACY_SETS: ${sets} (${EVALUATION_SETS.join(', ')})`);
  const design = designOf(repoRoot);
  const pieces = evaluationPieces(sets, python, cacheDir);
  const files = await renderEvaluation(pieces, cacheDir, log);
  const list = pieces.map((piece) => files.get(piece.id)!);
  log(`the project's analyzers on ${list.length} files`);
  const estimates: Estimates = { catalog: await catalogEstimates(list) };
  log(`Essentia on ${list.length} files`);
  Object.assign(estimates, await essentiaEstimates(python, list, cacheDir));
  const scored = (system: string, group: EvaluationPiece[]): Array<Scored<EvaluationPiece>> =>
    group.map((piece) => {
      const file = files.get(piece.id)!;
      return { piece, estimate: estimates[system]!.get(file)!, audioSeconds: durations.get(file) ?? 0 };
    });
  const groups: Array<[string, EvaluationPiece[]]> = sets.flatMap((set) => {
    const of = pieces.filter((piece) => piece.set === set);
    const kinds = [...new Set(of.map((piece) => piece.kind))];
    const ballads = of.filter((piece) => piece.describe.startsWith('ballad'));
    return [
      [set, of] as [string, EvaluationPiece[]],
      ...(kinds.length > 1 ? kinds.map((kind): [string, EvaluationPiece[]] => [`${set}: ${kind}`, of.filter((p) => p.kind === kind)]) : []),
      ...(ballads.length > 0 ? [[`${set}: drumless ballads`, ballads] as [string, EvaluationPiece[]]] : []),
    ];
  });
  const results: SetResult[] = groups.map(([name, group]) => {
    const systems = Object.fromEntries(SYSTEMS.map((system) => [system, scoreGroup(scored(system, group))]));
    const noBpm = group.filter((piece) => estimates.catalog!.get(files.get(piece.id)!)!.bpm === null).length;
    const ours = systems.catalog!;
    const essentia = SYSTEMS.filter((s) => s !== 'catalog').map((s) => systems[s]!);
    const bestKey = Math.max(...essentia.map((e) => e.keyMirex));
    const theirAcc1 = essentia[0]!.tempoAcc1;
    const met = {
      key: ours.keyMirex >= bestKey + TARGETS.keyMargin,
      acc1: ours.tempoAcc1 >= Math.max(theirAcc1, TARGETS.acc1),
      acc2: ours.tempoAcc2 >= TARGETS.acc2,
    };
    const tempoConfidence = confidenceSplit(scored('catalog', group), (e) => e.tempoConfidence, tempoCorrect, CHECK_UNDER);
    return { name, pieces: group.length, systems, noBpm, bestEssentiaKey: bestKey, met, tempoConfidence };
  });
  const report = { benchmark: 'accuracy', at: new Date().toISOString(), machine: machine(), design, sets, targets: TARGETS, results };
  mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
  const out = join(repoRoot, 'bench/results/accuracy.json');
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  printEvaluation(results);
  const summary = results
    .filter((r) => (sets as string[]).includes(r.name))
    .map((r) => {
      const c = r.systems.catalog!;
      const pct = (v: number) => Math.round(v * 100);
      const essentia = r.systems['essentia-edma']!;
      return `${r.name} key ${c.keyMirex.toFixed(3)}/${r.bestEssentiaKey.toFixed(3)} Acc1 ${pct(c.tempoAcc1)}/${pct(essentia.tempoAcc1)} Acc2 ${pct(c.tempoAcc2)}/${pct(essentia.tempoAcc2)} met ${Object.values(r.met).filter(Boolean).length}/3`;
    })
    .join('; ');
  logRead(repoRoot, design, summary);
  log(`results: ${out}`);
}
