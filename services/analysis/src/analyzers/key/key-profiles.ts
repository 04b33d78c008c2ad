import { KEY_TONICS, type KeyMode } from '@catalog/contracts';

/** Key profiles of each mode, from the tonic up in semitones: one for the bass register, one above. */
export interface KeyProfiles {
  bass: Record<KeyMode, readonly number[]>;
  treble: Record<KeyMode, readonly number[]>;
}

/**
 * Krumhansl–Kessler key profiles (probe-tone ratings, C. Krumhansl, "Cognitive Foundations of
 * Musical Pitch", 1990), from the tonic up in semitones.
 */
export const KRUMHANSL_PROFILES: Record<KeyMode, readonly number[]> = {
  major: [5.0, 2.0, 3.5, 2.0, 4.5, 4.0, 2.0, 4.5, 2.0, 3.5, 1.5, 4.0],
  minor: [5.0, 2.0, 3.5, 4.5, 2.0, 4.0, 2.0, 4.5, 3.5, 2.0, 1.5, 4.0],
};

/**
 * Profiles learned on the tuning split of bench/accuracy (generator v1; FluidR3 and TimGM6mb, 96
 * pieces): the mean peak chroma of each mode rotated to its tonic, bass register and above apart,
 * scaled to a maximum of 1 (bench/accuracy/tune.ts prints them; decision 0121). Never learned on the
 * held-out split.
 */
export const KEY_PROFILES: KeyProfiles = {
  bass: {
    major: [1, 0.08, 0.28, 0.13, 0.3, 0.42, 0.05, 0.57, 0.05, 0.21, 0.03, 0.11],
    minor: [1, 0.08, 0.16, 0.15, 0.07, 0.37, 0.03, 0.59, 0.47, 0.06, 0.18, 0.11],
  },
  treble: {
    major: [0.86, 0.07, 0.68, 0.05, 0.68, 0.36, 0.16, 1, 0.06, 0.62, 0.05, 0.51],
    minor: [1, 0.03, 0.55, 0.68, 0.16, 0.54, 0.09, 0.97, 0.38, 0.18, 0.31, 0.28],
  },
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
