/**
 * bench/accuracy/learn-mode.ts: the mode at a known tonic learned discriminatively (decision 0143).
 * Each piece's lead and treble chroma, rotated to its true tonic and each scaled to zero mean and
 * unit length, are the features of a logistic regression (minor against major; L2 penalty but on
 * the bias, full-batch gradient descent from zero: deterministic). As in learn-profiles.ts, a
 * register's dot product with its weights is its correlation with them times their length, so the
 * analyzer's mode profiles are the weights and the register weights their lengths.
 */
import type { KeyMode } from '@catalog/contracts';
import type { KeyProfiles } from '@catalog/analysis/analyzers';
import { centredLength, scaledRotation, unitRange } from './learn-profiles.js';

export const MODE_REGISTERS = ['lead', 'treble'] as const;
export interface ModeExample {
  chroma: Record<(typeof MODE_REGISTERS)[number], ArrayLike<number>>;
  tonic: number;
  mode: KeyMode;
}
export const MODE_OPTIONS = { epochs: 800, rate: 2, l2: 1e-3 };

/** The bias, then 12 weights a register. */
export function learnModeWeights(examples: ModeExample[], options = MODE_OPTIONS): number[] {
  const rows = examples.map((e) => [1, ...MODE_REGISTERS.flatMap((register) => scaledRotation(e.chroma[register], e.tonic))]);
  const minor = examples.map((e) => (e.mode === 'minor' ? 1 : 0));
  const weights: number[] = Array(rows[0]?.length ?? 1).fill(0);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const gradient: number[] = Array(weights.length).fill(0);
    rows.forEach((row, e) => {
      const error = 1 / (1 + Math.exp(-row.reduce((sum, v, d) => sum + v * weights[d]!, 0))) - minor[e]!;
      row.forEach((v, d) => (gradient[d]! += error * v));
    });
    weights.forEach((w, d) => (weights[d] = w - options.rate * (gradient[d]! / rows.length + (d > 0 ? options.l2 * w : 0))));
  }
  return weights;
}

/** The analyzer's mode profiles of learned weights. */
export function modeProfilesOf(weights: number[]): KeyProfiles['mode'] {
  const part = (r: number) => weights.slice(1 + 12 * r, 13 + 12 * r);
  return {
    profiles: { lead: unitRange(part(0)), treble: unitRange(part(1)) },
    weights: { lead: centredLength(part(0)), treble: centredLength(part(1)) },
    bias: Math.round(weights[0]! * 100) / 100,
  };
}
