import { KEY_TONICS, type KeyMode } from '@catalog/contracts';
import type { ReRank } from './key-rerank.js';

/**
 * The chroma vectors a key is read from: above the bass register, the bass register, the bass of
 * the last seconds (the final chord's root), the bass and the treble of the first seconds (the chord
 * a loop starts on) and the treble of the last seconds (the final chord).
 */
export const REGISTERS = ['treble', 'bass', 'endBass', 'startBass', 'startTreble', 'endTreble'] as const;
export type Register = (typeof REGISTERS)[number];

/**
 * Key profiles of each mode and register, from the tonic up in semitones, and the weight of each
 * register's correlation in a key's score; the re-rank of the first choice's neighbours (null: none).
 */
export type KeyProfiles = Record<Register, Record<KeyMode, readonly number[]>> & {
  weights: Record<KeyMode, Record<Register, number>>;
  mode: ModeProfiles;
  rerank: ReRank | null;
};

/** The chroma vectors the mode is read from once the tonic is chosen: the lead and all above the bass. */
export const MODE_REGISTERS = ['lead', 'treble'] as const;
export type ModeRegister = (typeof MODE_REGISTERS)[number];

/**
 * Evidence of the mode at a chosen tonic: minor when `bias` plus each register's correlation with
 * its profile (from the tonic up), times its weight, is above zero (decision 0143).
 */
export interface ModeProfiles {
  profiles: Record<ModeRegister, readonly number[]>;
  weights: Record<ModeRegister, number>;
  bias: number;
}

/**
 * Krumhansl–Kessler key profiles (probe-tone ratings, C. Krumhansl, "Cognitive Foundations of
 * Musical Pitch", 1990), from the tonic up in semitones.
 */
export const KRUMHANSL_PROFILES: Record<KeyMode, readonly number[]> = {
  major: [5.0, 2.0, 3.5, 2.0, 4.5, 4.0, 2.0, 4.5, 2.0, 3.5, 1.5, 4.0],
  minor: [5.0, 2.0, 3.5, 4.5, 2.0, 4.0, 2.0, 4.5, 3.5, 2.0, 1.5, 4.0],
};

/** Minor tonics spelled as musicians do (C# minor, not Db minor). */
const MINOR_TONICS = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'G#', 'A', 'Bb', 'B'] as const;

export function tonicName(pitchClass: number, mode: KeyMode): string {
  return (mode === 'major' ? KEY_TONICS : MINOR_TONICS)[pitchClass]!;
}

/** Camelot wheel: C major 8B, A minor 8A, each fifth up one number. */
export function camelot(pitchClass: number, mode: KeyMode): string {
  const major = mode === 'major' ? pitchClass : (pitchClass + 3) % 12;
  return `${((((7 * major) % 12) + 7) % 12) + 1}${mode === 'major' ? 'B' : 'A'}`;
}

/** Pearson correlation of a pitch-class profile with a key profile rotated to `tonic`. */
export function correlation(chroma: Float64Array, profile: readonly number[], tonic: number): number {
  let meanX = 0,
    meanY = 0;
  for (let i = 0; i < 12; i++) {
    meanX += chroma[(i + tonic) % 12]!;
    meanY += profile[i]!;
  }
  meanX /= 12;
  meanY /= 12;
  let xy = 0,
    xx = 0,
    yy = 0;
  for (let i = 0; i < 12; i++) {
    const x = chroma[(i + tonic) % 12]! - meanX;
    const y = profile[i]! - meanY;
    xy += x * y;
    xx += x * x;
    yy += y * y;
  }
  return xx > 0 && yy > 0 ? xy / Math.sqrt(xx * yy) : 0;
}
