/**
 * bench/accuracy/learn-octave.ts: the weights of the tempo analyzer's octave choice (decision
 * 0140): a logistic regression (L2 penalty, full-batch gradient descent from zero: deterministic)
 * of "the beat is the fast level" on each piece's octave evidence, over the pieces whose true
 * tempo is one of the two levels.
 */
import { acc1 } from './metrics.js';
export interface OctaveExample {
  features: number[];
  /** 1: the beat is the fast level; 0: the slow one. */
  fast: 0 | 1;
}
/**
 * What a pair of levels (slow, twice it) should choose for a true tempo: 1 when the truth is the
 * fast level; 0 when it is the slow level or half it (the analyzer then goes on to the next pair
 * down); null when it is neither (the pair teaches nothing about that piece).
 */
export function octaveLabel(truthBpm: number, slow: number): 0 | 1 | null {
  if (acc1(truthBpm, slow * 2)) return 1;
  return acc1(truthBpm, slow) || acc1(truthBpm, slow / 2) ? 0 : null;
}

export const OCTAVE_LEARN = { epochs: 3000, rate: 1, l2: 1e-3 };

export function learnOctaveWeights(examples: OctaveExample[], options = OCTAVE_LEARN): number[] {
  const dims = examples[0]?.features.length ?? 0;
  const weights = Array<number>(dims).fill(0);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const gradient = Array<number>(dims).fill(0);
    for (const { features, fast } of examples) {
      const score = features.reduce((sum, value, i) => sum + value * weights[i]!, 0);
      const error = 1 / (1 + Math.exp(-score)) - fast;
      for (let i = 0; i < dims; i++) gradient[i]! += error * features[i]!;
    }
    for (let i = 0; i < dims; i++) weights[i]! -= options.rate * (gradient[i]! / examples.length + options.l2 * weights[i]!);
  }
  return weights.map((w) => Math.round(w * 100) / 100);
}
