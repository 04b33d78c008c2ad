import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { acc1, acc2, mirexScore, missKind, parseKey } from '../../bench/accuracy/metrics.js';
import { repositoryRoot } from './repository-root.js';

/**
 * The accuracy benchmark's key score is the field's: mir_eval.key.weighted_score. Its answers for
 * every pair of the 24 keys were written once by mir_eval itself (bench/accuracy/mir_eval_keys.py);
 * the benchmark's score must give each of them.
 */
const fixture = JSON.parse(readFileSync(join(repositoryRoot, 'bench/accuracy/mir-eval-key-scores.json'), 'utf8')) as {
  mir_eval: string;
  scores: Array<[string, string, number]>;
};

test('the key score is mir_eval.key.weighted_score on every pair of keys', () => {
  expect(fixture.scores).toHaveLength(24 * 24);
  const differing = fixture.scores.filter(([reference, estimate, score]) => mirexScore(parseKey(reference)!, parseKey(estimate)) !== score);
  expect(differing).toEqual([]);
});

test('a fifth above earns half, a fifth below nothing; no estimate nothing', () => {
  const c = parseKey('C major')!;
  expect(mirexScore(c, parseKey('G major'))).toBe(0.5);
  expect(mirexScore(c, parseKey('F major'))).toBe(0);
  expect(mirexScore(c, null)).toBe(0);
});

test('tempo Acc1 is within 4 %, Acc2 also at twice, three times, half and a third', () => {
  expect(acc1(120, 124.8)).toBe(true);
  expect(acc1(120, 125)).toBe(false);
  expect(acc1(120, null)).toBe(false);
  for (const factor of [1, 2, 3, 1 / 2, 1 / 3]) expect(acc2(120, 120 * factor * 1.03)).toBe(true);
  expect(acc2(120, 180)).toBe(false);
  expect(acc2(120, 90)).toBe(false);
});

test('a wrong tempo is named by what it is: half, double, another multiple, other, or none', () => {
  expect(missKind(120, 60.5)).toBe('half');
  expect(missKind(120, 238)).toBe('double');
  expect(missKind(120, 40)).toBe('multiple');
  expect(missKind(120, 90)).toBe('other');
  expect(missKind(120, null)).toBe('none');
});
