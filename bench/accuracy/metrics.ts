/**
 * bench/accuracy/metrics.ts: the scores of one estimate against the truth. Key: the field's weighted
 * score, mir_eval.key.weighted_score's (1 the same key, 0.5 the key a fifth ABOVE in the same mode,
 * never the one a fifth below; 0.3 the relative key, 0.2 the parallel key, else 0; checked against
 * mir_eval's own answers, mir-eval-key-scores.json) and exact. Tempo: Acc1 (within ±4 % of the truth) and Acc2 (within
 * ±4 % of the truth × 1, 2, 3, ½ or ⅓: octave errors allowed).
 */
const PITCH_CLASSES: Record<string, number> = {
  C: 0,
  'B#': 0,
  'C#': 1,
  Db: 1,
  D: 2,
  'D#': 3,
  Eb: 3,
  E: 4,
  Fb: 4,
  F: 5,
  'E#': 5,
  'F#': 6,
  Gb: 6,
  G: 7,
  'G#': 8,
  Ab: 8,
  A: 9,
  'A#': 10,
  Bb: 10,
  B: 11,
  Cb: 11,
};

export interface Key {
  tonic: number;
  mode: 'major' | 'minor';
}

/** "F# minor", "Eb major" (either spelling) to a pitch class and mode; null if it is not a key. */
export function parseKey(name: string | null): Key | null {
  if (!name) return null;
  const [tonic, mode] = name.trim().split(/\s+/);
  const pc = PITCH_CLASSES[tonic ?? ''];
  if (pc === undefined || (mode !== 'major' && mode !== 'minor')) return null;
  return { tonic: pc, mode };
}

/** mir_eval.key.weighted_score (no estimate scores 0). */
export function mirexScore(truth: Key, estimate: Key | null): number {
  if (!estimate) return 0;
  const interval = (estimate.tonic - truth.tonic + 12) % 12;
  if (estimate.mode === truth.mode) {
    if (interval === 0) return 1;
    return interval === 7 ? 0.5 : 0;
  }
  if (interval === 0) return 0.2;
  const relative = truth.mode === 'major' ? 9 : 3;
  return interval === relative ? 0.3 : 0;
}

const TOLERANCE = 0.04;
const within = (estimate: number, target: number) => Math.abs(estimate - target) <= TOLERANCE * target;

export function acc1(truth: number, estimate: number | null): boolean {
  return estimate !== null && within(estimate, truth);
}

export function acc2(truth: number, estimate: number | null): boolean {
  return estimate !== null && [1, 2, 3, 1 / 2, 1 / 3].some((factor) => within(estimate, truth * factor));
}

/** The kind of a key error, for the breakdown: exact, fifth, relative, parallel, other, none. */
export function keyErrorKind(truth: Key, estimate: Key | null): string {
  const score = mirexScore(truth, estimate);
  return estimate === null
    ? 'none'
    : (({ 1: 'exact', 0.5: 'fifth', 0.3: 'relative', 0.2: 'parallel' } as Record<number, string>)[score] ?? 'other');
}

/** What a wrong tempo is: half or twice the truth, another multiple Acc2 counts, anything else, or none. */
export function missKind(truth: number, bpm: number | null): 'half' | 'double' | 'multiple' | 'other' | 'none' {
  if (bpm === null) return 'none';
  if (acc1(truth / 2, bpm)) return 'half';
  if (acc1(truth * 2, bpm)) return 'double';
  return acc2(truth, bpm) ? 'multiple' : 'other';
}
