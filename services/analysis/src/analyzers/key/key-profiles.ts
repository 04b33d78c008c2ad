import { KEY_TONICS, type KeyMode } from '@catalog/contracts';

/** The chroma vectors a key is read from: above the bass register, the bass register, the bass of the last seconds. */
export const REGISTERS = ['treble', 'bass', 'endBass'] as const;
export type Register = (typeof REGISTERS)[number];

/**
 * Key profiles of each mode and register, from the tonic up in semitones, and the weight of each
 * register's correlation in a key's score.
 */
export type KeyProfiles = Record<Register, Record<KeyMode, readonly number[]>> & {
  weights: Record<KeyMode, Record<Register, number>>;
  mode: ModeProfiles;
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

/**
 * Profiles and register weights learned discriminatively on the tuning split of bench/accuracy
 * (generator v1; FluidR3 and TimGM6mb, 192 pieces each): the weights of a logistic regression over
 * the 24 keys, each register's scaled to 0…1, and their lengths (bench/accuracy/tune.ts prints
 * them; decision 0140). They tell a key from its neighbours rather than describe it, so their
 * largest values need not sit on the scale's degrees. The mode's profiles likewise, of a logistic
 * regression of minor against major at the true tonic (bench/accuracy/learn-mode.ts; decision
 * 0143). Never learned on the held-out split.
 */
export const KEY_PROFILES: KeyProfiles = {
  treble: {
    major: [0.89, 0.46, 0.6, 0.24, 0.8, 0.56, 0.21, 1, 0.37, 0.54, 0, 0.61],
    minor: [1, 0, 0.62, 0.91, 0.13, 0.38, 0.32, 0.88, 0.52, 0.02, 0.27, 0.43],
  },
  bass: {
    major: [0.91, 0.55, 0.62, 0.55, 0.92, 0.5, 0.38, 1, 0.64, 0.57, 0, 0.56],
    minor: [1, 0, 0.57, 0.54, 0.43, 0.38, 0.1, 0.67, 0.62, 0.24, 0.36, 0.43],
  },
  endBass: {
    major: [0.87, 0.24, 1, 0.22, 0.27, 0.21, 0.48, 0, 0.37, 0.27, 0.35, 0.31],
    minor: [1, 0.22, 0.22, 0.05, 0.27, 0.06, 0, 0.27, 0.13, 0.29, 0.19, 0.13],
  },
  weights: {
    major: { treble: 10.09, bass: 2.57, endBass: 2.75 },
    minor: { treble: 10.86, bass: 2.12, endBass: 2.57 },
  },
  mode: {
    profiles: {
      lead: [0.58, 0.52, 0.46, 1, 0, 0.48, 0.52, 0.6, 0.87, 0, 0.64, 0.4],
      treble: [0.65, 0.44, 0.38, 1, 0, 0.53, 0.45, 0.55, 0.71, 0.1, 0.68, 0.33],
    },
    weights: { lead: 4.8, treble: 6.85 },
    bias: -0.18,
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
