import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The accuracy benchmark's held-out split (bench/accuracy/corpus.ts) is read by the benchmark
 * alone: the analyzers are tuned on the tuning split (bench/accuracy/tune.ts), and their targets
 * are judged on pieces that tuning never read (decision 0121). The corpus is reached only through
 * corpus(); this test fails if any file but the benchmark's runner calls it for the held-out split
 * (or for every split, its default), or names that split.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** The benchmark itself: the corpus definition, the renderer of its pieces, and the runner. */
const BENCHMARK = new Set(['bench/accuracy/corpus.ts', 'bench/accuracy/render.ts', 'bench/accuracy/run.ts']);
const SOURCE = /\.(ts|mts|js|mjs|cjs|py|sh)$/;

function sources(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(
      (file) => SOURCE.test(file) && !file.includes('node_modules/') && file !== 'services/analysis/test/analyzers/heldout-split.test.ts',
    );
}

test('only the accuracy benchmark names the held-out split or reads the corpus', () => {
  const offenders = sources()
    .filter((file) => !BENCHMARK.has(file))
    .flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(join(root, file), 'utf8');
      } catch {
        return [];
      }
      const calls = [...text.matchAll(/\bcorpus\(([^)]*)\)/g)].map((match) => match[1]!.trim());
      const badCalls = calls.filter((args) => !/^\[\s*'tuning'\s*\]$/.test(args));
      return /held-?out/i.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$|^\s*#.*$/gm, '')) || badCalls.length > 0 ? [file] : [];
    });
  expect(offenders).toEqual([]);
});

test('the tuning and held-out splits share no seed and no sound font', () => {
  const plan = readFileSync(join(root, 'bench/accuracy/corpus.ts'), 'utf8');
  const groups = [...plan.matchAll(/\{ split: '(\w+)', font: '(\w+)', seedBase: ([\d_]+), count: (\d+) \}/g)].map((m) => ({
    split: m[1]!,
    font: m[2]!,
    from: Number(m[3]!.replaceAll('_', '')),
    to: Number(m[3]!.replaceAll('_', '')) + Number(m[4]!),
  }));
  const tuning = groups.filter((g) => g.split === 'tuning');
  const heldout = groups.filter((g) => g.split === 'heldout');
  expect(tuning.length).toBeGreaterThan(0);
  expect(heldout.length).toBeGreaterThan(0);
  for (const h of heldout) {
    for (const t of tuning) {
      expect(h.font).not.toBe(t.font);
      expect(h.to <= t.from || t.to <= h.from).toBe(true);
    }
  }
});
