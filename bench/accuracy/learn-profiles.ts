/**
 * bench/accuracy/learn-profiles.ts: key profiles learned discriminatively (decision 0140). Each
 * piece's chroma vectors (treble, bass, the bass of its end), rotated to a candidate tonic and each
 * scaled to zero mean and unit length, are scored against one weight vector per mode; the weights
 * are those of a multinomial logistic regression over the 24 keys (softmax, L2 penalty, full-batch
 * gradient descent from zero: deterministic). As the scaled chroma has zero mean and unit length,
 * its dot product with a register's weights is its Pearson correlation with them times their
 * length: the analyzer's profiles are the weights, and the register weights their lengths.
 */
import { KEY_MODES, type KeyMode } from '@catalog/contracts';
import type { KeyProfiles } from '@catalog/analysis/analyzers';

export const REGISTERS = ['treble', 'bass', 'endBass', 'startBass', 'startTreble', 'endTreble'] as const;
export type Register = (typeof REGISTERS)[number];
export type Chroma = Partial<Record<Register, ArrayLike<number>>>;
export interface Example {
  chroma: Chroma;
  tonic: number;
  mode: KeyMode;
}
export interface LearnOptions {
  epochs: number;
  rate: number;
  l2: number;
  /** Length of each register's prior (its mean scaled chroma at the true tonic) the penalty pulls towards; 0: towards zero. */
  prior: number;
  /** The registers read (the others get weight 0). */
  registers: readonly Register[];
}
export const LEARN_OPTIONS: LearnOptions = {
  epochs: 500,
  rate: 5,
  l2: 1e-3,
  prior: 0,
  registers: ['treble', 'bass', 'endBass', 'startBass', 'startTreble', 'endTreble'],
};

/** `values` rotated to `tonic` (the tonic first), scaled to zero mean and unit length. */
export function scaledRotation(values: ArrayLike<number>, tonic: number): number[] {
  const rotated = Array.from({ length: 12 }, (_, i) => values[(i + tonic) % 12]!);
  const mean = rotated.reduce((a, b) => a + b, 0) / 12;
  const norm = Math.sqrt(rotated.reduce((sum, v) => sum + (v - mean) ** 2, 0));
  return rotated.map((v) => (norm > 0 ? (v - mean) / norm : 0));
}

/** The scaled chroma of an example rotated to each tonic: 12 rows of 12 values a register. */
function rotations(chroma: Chroma, registers: readonly Register[]): Float64Array[] {
  return Array.from({ length: 12 }, (_, tonic) =>
    Float64Array.from(registers.flatMap((register) => scaledRotation(chroma[register]!, tonic))),
  );
}

const dot = (a: Float64Array, b: Float64Array) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

/** Weights of each mode (12 a register) learned on `examples`. */
export function learnWeights(examples: Example[], options: LearnOptions = LEARN_OPTIONS): Record<KeyMode, Float64Array> {
  const dims = 12 * options.registers.length;
  const rows = examples.map((example) => rotations(example.chroma, options.registers));
  const prior = meanPrior(examples, rows, options.prior, options.registers.length);
  const weights = { major: Float64Array.from(prior.major), minor: Float64Array.from(prior.minor) };
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const gradient = { major: new Float64Array(dims), minor: new Float64Array(dims) };
    examples.forEach((example, e) => {
      const scores = KEY_MODES.flatMap((mode) => rows[e]!.map((row) => dot(row, weights[mode])));
      const top = Math.max(...scores);
      const exps = scores.map((s) => Math.exp(s - top));
      const sum = exps.reduce((a, b) => a + b, 0);
      KEY_MODES.forEach((mode, m) => {
        for (let tonic = 0; tonic < 12; tonic++) {
          const target = mode === example.mode && tonic === example.tonic ? 1 : 0;
          const error = exps[12 * m + tonic]! / sum - target;
          const row = rows[e]![tonic]!;
          for (let d = 0; d < dims; d++) gradient[mode][d]! += error * row[d]!;
        }
      });
    });
    for (const mode of KEY_MODES)
      for (let d = 0; d < dims; d++)
        weights[mode][d]! -= options.rate * (gradient[mode][d]! / examples.length + options.l2 * (weights[mode][d]! - prior[mode][d]!));
  }
  return weights;
}

/** Each mode's mean scaled chroma at the true tonic, each register's part scaled to `length`. */
function meanPrior(examples: Example[], rows: Float64Array[][], length: number, registers: number): Record<KeyMode, Float64Array> {
  const prior = { major: new Float64Array(12 * registers), minor: new Float64Array(12 * registers) };
  if (length === 0) return prior;
  examples.forEach((example, e) => rows[e]![example.tonic]!.forEach((v, d) => (prior[example.mode][d]! += v)));
  for (const mode of KEY_MODES)
    for (let r = 0; r < registers; r++) {
      const part = prior[mode].subarray(12 * r, 12 * r + 12);
      const norm = Math.sqrt(part.reduce((sum, v) => sum + v * v, 0)) || 1;
      part.forEach((v, i) => (part[i] = (v / norm) * length));
    }
  return prior;
}

const round = (v: number) => Math.round(v * 100) / 100;
/** Weights scaled to 0…1 (a profile: correlation ignores offset and scale). */
export function unitRange(values: number[]): number[] {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return values.map((v) => round((v - low) / (high - low || 1)));
}
/** Length of the weights about their mean (a profile's weight: the scaled chroma has zero mean). */
export function centredLength(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return round(Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0)));
}

/** The analyzer's profiles of learned weights: each register's weights scaled to 0…1, and their lengths. */
export function profilesOf(
  weights: Record<KeyMode, Float64Array>,
  registers: readonly Register[] = LEARN_OPTIONS.registers,
): Omit<KeyProfiles, 'mode' | 'rerank'> {
  const part = (mode: KeyMode, register: Register) => {
    const r = registers.indexOf(register);
    return r < 0 ? Array<number>(12).fill(0) : Array.from(weights[mode].subarray(12 * r, 12 * r + 12));
  };
  const profiles = Object.fromEntries(
    REGISTERS.map((register) => [register, Object.fromEntries(KEY_MODES.map((mode) => [mode, unitRange(part(mode, register))]))]),
  );
  const lengths = Object.fromEntries(
    KEY_MODES.map((mode) => [mode, Object.fromEntries(REGISTERS.map((register) => [register, centredLength(part(mode, register))]))]),
  );
  return { ...profiles, weights: lengths } as Omit<KeyProfiles, 'mode' | 'rerank'>;
}
