import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The accuracy benchmark's evaluation sets (bench/accuracy/evaluation/) are read by the benchmark
 * alone, and only after the design they score is fixed (decision 0162): the analyzers are tuned on
 * the tuning corpus (bench/accuracy/corpus.ts, bench/accuracy/tune.ts). So no file but the
 * benchmark names the evaluation's generators or its scores (music21's corpus); what steers the key
 * and tempo (the tuning and their unit tests) renders dry, where the evaluation plays the
 * synthesizer's reverb and chorus; and the evaluation plays no instrument program the tuning
 * generator (and so the unit tests of generated music) plays.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const THIS = 'services/analysis/test/analyzers/evaluation-sets.test.ts';
/** The benchmark: the evaluation's own folder, its one reader and the runner, and the setup that installs music21. */
const BENCHMARK = /^bench\/accuracy\/(evaluation\/|evaluate\.ts$|run\.ts$|setup\.sh$)/;
const SOURCE = /\.(ts|mts|js|mjs|cjs|py|sh)$/;
const EVALUATION_NAMES = [
  /accuracy\/evaluation|\.\/evaluation\//,
  /\bevaluationPieces\b/,
  /\bpopPiece\b/,
  /\bcomposedPiece\b/,
  /\bchorales\(/,
  /\bmusic21\b/,
  /\bEVALUATION_SETS\b/,
];
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$|^\s*#.*$/gm, '');

function sources(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => SOURCE.test(file) && !file.includes('node_modules/') && file !== THIS);
}

const read = (file: string) => {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch {
    return '';
  }
};

test('no file but the benchmark names the evaluation sets, their generators or their scores', () => {
  const offenders = sources()
    .filter((file) => !BENCHMARK.test(file))
    .filter((file) => {
      const text = withoutComments(read(file));
      return EVALUATION_NAMES.some((name) => name.test(text));
    });
  expect(offenders).toEqual([]);
});

test('what steers the key and tempo renders without reverb and chorus', () => {
  const steering = [
    'bench/accuracy/corpus.ts',
    'bench/accuracy/render.ts',
    'bench/accuracy/tune.ts',
    ...sources().filter((file) => /^services\/analysis\/test\/analyzers\/(key|tempo|generated-music|harmonic-change)/.test(file)),
  ];
  expect(steering.length).toBeGreaterThan(4);
  expect(steering.filter((file) => /\beffects:\s*true\b/.test(withoutComments(read(file))))).toEqual([]);
});

test('outside the benchmark, the tuning corpus is read for its tuning split only', () => {
  const offenders = sources()
    .filter((file) => !/^bench\/accuracy\/(corpus|render|run)\.ts$/.test(file))
    .filter((file) => [...read(file).matchAll(/\bcorpus\(([^)]*)\)/g)].some((match) => !/^\[\s*'tuning'\s*\]$/.test(match[1]!.trim())));
  expect(offenders).toEqual([]);
});

test('the evaluation plays no program the tuning generator plays', () => {
  const numbers = (text: string) => new Set([...text.matchAll(/\d+/g)].map((m) => Number(m[0])));
  const tuning = [...read('packages/testing/src/music/generated.ts').matchAll(/_PROGRAMS = \[([^\]]*)\]/g)].flatMap((m) => [
    ...numbers(m[1]!),
  ]);
  const pop = [...read('bench/accuracy/evaluation/pop.ts').matchAll(/_PROGRAMS = \[([^\]]*)\]/g)].flatMap((m) => [...numbers(m[1]!)]);
  const ensembles = read('bench/accuracy/evaluation/composed.ts').match(/const ENSEMBLES[^=]*= \{([\s\S]*?)\};/)![1]!;
  const composed = [...ensembles.matchAll(/\[([\d, ]+)\]/g)].flatMap((m) => [...numbers(m[1]!)]);
  expect(tuning.length).toBeGreaterThan(10);
  expect(pop.length).toBeGreaterThan(10);
  expect(composed.length).toBeGreaterThan(10);
  expect([...pop, ...composed].filter((program) => tuning.includes(program))).toEqual([]);
});

test('the tuning and validation splits share no seed and no sound font', () => {
  const plan = read('bench/accuracy/corpus.ts');
  const groups = [...plan.matchAll(/\{ split: '(\w+)', font: '(\w+)', seedBase: ([\d_]+), count: (\d+)(?:, \w+: '\w+')* \}/g)].map((m) => ({
    split: m[1]!,
    font: m[2]!,
    from: Number(m[3]!.replaceAll('_', '')),
    to: Number(m[3]!.replaceAll('_', '')) + Number(m[4]!),
  }));
  const tuning = groups.filter((g) => g.split === 'tuning');
  const validation = groups.filter((g) => g.split === 'validation');
  expect(tuning.length).toBeGreaterThan(0);
  expect(validation.length).toBeGreaterThan(0);
  for (const v of validation)
    for (const t of tuning) {
      expect(v.font).not.toBe(t.font);
      expect(v.to <= t.from || t.to <= v.from).toBe(true);
    }
});
