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
/** An example's score under `weights`: the fast level is the beat when it is positive. */
export const octaveScore = (features: number[], weights: number[]) => features.reduce((sum, value, i) => sum + value * weights[i]!, 0);
/** The learner's options; `method: 'newton'` solves for the penalised optimum itself (epochs and rate unread), for `tune.ts` to weigh. */
export type OctaveLearnOptions = typeof OCTAVE_LEARN & { method?: 'gradient' | 'newton' };

export function learnOctaveWeights(examples: OctaveExample[], options: OctaveLearnOptions = OCTAVE_LEARN): number[] {
  if (options.method === 'newton') return rounded(newtonWeights(examples, options.l2));
  const dims = examples[0]?.features.length ?? 0;
  const weights = Array<number>(dims).fill(0);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const gradient = Array<number>(dims).fill(0);
    for (const { features, fast } of examples) {
      const score = octaveScore(features, weights);
      const error = 1 / (1 + Math.exp(-score)) - fast;
      for (let i = 0; i < dims; i++) gradient[i]! += error * features[i]!;
    }
    for (let i = 0; i < dims; i++) weights[i]! -= options.rate * (gradient[i]! / examples.length + options.l2 * weights[i]!);
  }
  return rounded(weights);
}

const rounded = (weights: number[]) => weights.map((w) => Math.round(w * 100) / 100);
const NEWTON_STEPS = 100;
const CONVERGED = 1e-9;

/** The mean log loss of `weights` plus the penalty (l2 / 2 · |w|², the constant's weight too). */
function penalisedLoss(examples: OctaveExample[], weights: number[], l2: number): number {
  let loss = 0;
  for (const { features, fast } of examples) {
    const score = octaveScore(features, weights);
    const margin = fast === 1 ? score : -score;
    loss += margin > 0 ? Math.log1p(Math.exp(-margin)) : -margin + Math.log1p(Math.exp(margin));
  }
  return loss / examples.length + (l2 / 2) * weights.reduce((sum, w) => sum + w * w, 0);
}

/** Solves `matrix · x = vector` by Gaussian elimination with partial pivoting. */
function solveLinear(matrix: number[][], vector: number[]): number[] {
  const n = vector.length;
  const rows = matrix.map((row, i) => [...row, vector[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(rows[r]![col]!) > Math.abs(rows[pivot]![col]!)) pivot = r;
    [rows[col], rows[pivot]] = [rows[pivot]!, rows[col]!];
    const head = rows[col]!;
    if (Math.abs(head[col]!) < 1e-300) throw new Error('singular system');
    for (let r = col + 1; r < n; r++) {
      const factor = rows[r]![col]! / head[col]!;
      for (let c = col; c <= n; c++) rows[r]![c]! -= factor * head[c]!;
    }
  }
  const x = Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let sum = rows[r]![n]!;
    for (let c = r + 1; c < n; c++) sum -= rows[r]![c]! * x[c]!;
    x[r] = sum / rows[r]![r]!;
  }
  return x;
}

/**
 * The same regression's penalised optimum by Newton's method from zero (step halved while the loss
 * rises): strictly convex for l2 > 0, so one answer whatever the step count.
 */
function newtonWeights(examples: OctaveExample[], l2: number): number[] {
  if (!(l2 > 0)) throw new Error('Newton needs a positive L2 penalty (the optimum is then unique)');
  const dims = examples[0]?.features.length ?? 0;
  let weights = Array<number>(dims).fill(0);
  for (let step = 0; step < NEWTON_STEPS; step++) {
    const gradient = weights.map((w) => l2 * w);
    const hessian = weights.map((_, i) => weights.map((__, j) => (i === j ? l2 : 0)));
    for (const { features, fast } of examples) {
      const p = 1 / (1 + Math.exp(-octaveScore(features, weights)));
      for (let i = 0; i < dims; i++) {
        gradient[i]! += ((p - fast) * features[i]!) / examples.length;
        for (let j = 0; j < dims; j++) hessian[i]![j]! += (p * (1 - p) * features[i]! * features[j]!) / examples.length;
      }
    }
    const direction = solveLinear(hessian, gradient);
    const before = penalisedLoss(examples, weights, l2);
    let size = 1;
    let next = weights.map((w, i) => w - direction[i]!);
    while (penalisedLoss(examples, next, l2) > before && size > 1e-6) {
      size /= 2;
      next = weights.map((w, i) => w - size * direction[i]!);
    }
    const change = Math.max(...next.map((w, i) => Math.abs(w - weights[i]!)));
    weights = next;
    if (change < CONVERGED) break;
  }
  return weights;
}
