/** bench/accuracy/report.ts: the printed tables of the accuracy benchmark. */
import type { ConfidenceSplit, GroupScores } from './summary.js';

/** The scores of one evaluation set (or a kind of piece within it) and which targets it meets. */
export interface SetResult {
  name: string;
  pieces: number;
  systems: Record<string, GroupScores>;
  /** Pieces our tempo gave no BPM. */
  noBpm: number;
  bestEssentiaKey: number;
  met: { key: boolean; acc1: boolean; acc2: boolean };
  /** Our tempo's Acc1 at or over the confidence a station is told to check under, and under it. */
  tempoConfidence: ConfidenceSplit;
}

type Systems = Record<string, { groups: Record<string, GroupScores>; confidence: { key: ConfidenceSplit; tempo: ConfidenceSplit } }>;

const pct = (value: number) => `${(value * 100).toFixed(1)}`.padStart(6);
const cell = (text: string, width: number) => text.padStart(width);

export function printTables(systems: Systems): void {
  const names = Object.keys(systems);
  const groups = Object.keys(systems[names[0]!]!.groups);
  const width = 22;
  const lines: string[] = [];
  lines.push(`key: MIREX score / exact %${' '.repeat(4)}` + names.map((name) => cell(name, 20)).join(''));
  for (const group of groups) {
    const g = (name: string) => systems[name]!.groups[group]!;
    lines.push(
      `${group.padEnd(width)} n=${String(g(names[0]!).pieces).padStart(3)}` +
        names.map((name) => cell(`${g(name).keyMirex.toFixed(3)} /${pct(g(name).keyExact)}`, 20)).join(''),
    );
  }
  lines.push('', `tempo: Acc1 % / Acc2 %${' '.repeat(7)}` + cell('catalog', 20) + cell('essentia', 20));
  for (const group of groups) {
    const g = (name: string) => systems[name]!.groups[group]!;
    const row = (name: string) => cell(`${pct(g(name).tempoAcc1)} /${pct(g(name).tempoAcc2)}`, 20);
    lines.push(`${group.padEnd(width)} n=${String(g(names[0]!).pieces).padStart(3)}` + row('catalog') + row(names[1]!));
  }
  lines.push(
    '',
    'seconds per file (× realtime):' +
      names
        .map((name) => cell(`${systems[name]!.groups.all!.secondsPerFile.toFixed(3)} (${systems[name]!.groups.all!.realtime}×)`, 20))
        .join(''),
  );
  lines.push('', 'confidence (median split): exact key % above / below, tempo Acc1 % above / below');
  for (const name of names) {
    const { key, tempo } = systems[name]!.confidence;
    lines.push(
      `  ${name.padEnd(20)} key ≥${key.threshold}: ${pct(key.above.accuracy)} /${pct(key.below.accuracy)}   tempo ≥${tempo.threshold}: ${pct(tempo.above.accuracy)} /${pct(tempo.below.accuracy)}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
}

/** Per evaluation set: every system's key score, exact key, Acc1 and Acc2 side by side, and the targets. */
export function printEvaluation(results: SetResult[]): void {
  const names = Object.keys(results[0]?.systems ?? {});
  const lines = [
    `${'set'.padEnd(28)}${'system'.padEnd(20)}${'key'.padStart(7)}${'exact %'.padStart(9)}${'Acc1 %'.padStart(8)}${'Acc2 %'.padStart(8)}`,
  ];
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  for (const result of results) {
    for (const name of names) {
      const g = result.systems[name]!;
      const label = name === names[0] ? `${result.name} (n=${result.pieces})` : '';
      lines.push(
        `${label.padEnd(28)}${name.padEnd(20)}${g.keyMirex.toFixed(3).padStart(7)}${pct(g.keyExact)}${pct(g.tempoAcc1).padStart(8)}${pct(g.tempoAcc2).padStart(8)}`,
      );
    }
    lines.push(
      `${''.padEnd(28)}targets: key ≥ ${(result.bestEssentiaKey + 0.05).toFixed(3)} ${mark(result.met.key)}; Acc1 ≥ max(Essentia, 90 %) ${mark(result.met.acc1)}; Acc2 ≥ 98 % ${mark(result.met.acc2)}; no BPM on ${result.noBpm}`,
    );
    const { threshold, above, below } = result.tempoConfidence;
    lines.push(
      `${''.padEnd(28)}our tempo confidence ≥ ${threshold}: Acc1${pct(above.accuracy)} % of ${above.pieces}; under it:${pct(below.accuracy)} % of ${below.pieces}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
}
