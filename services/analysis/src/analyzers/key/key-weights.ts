import type { KeyMode } from '@catalog/contracts';
import keyWeights from './key-weights.json' with { type: 'json' };
import { REGISTERS, type MODE_REGISTERS, type KeyProfiles } from './key-profiles.js';
import type { ReRank } from './key-rerank.js';

/** A profile's twelve values named by their interval from the tonic up. */
export const INTERVALS = [
  'tonic',
  'minor second',
  'major second',
  'minor third',
  'major third',
  'fourth',
  'tritone',
  'fifth',
  'minor sixth',
  'major sixth',
  'minor seventh',
  'major seventh',
] as const;
export type Interval = (typeof INTERVALS)[number];
export type NamedProfile = Record<Interval, number>;

/**
 * The key weight file (key-weights.json): what bench/accuracy/tune.ts learns, by name, and where it
 * was learned (its provenance: the corpus plan, the sound fonts, the fluidsynth and ffmpeg versions).
 */
export interface KeyWeightsFile {
  about: string;
  provenance: Record<string, unknown>;
  /** A register the file leaves out is not read (weight 0). */
  profiles: Partial<Record<(typeof REGISTERS)[number], Record<KeyMode, NamedProfile>>>;
  registerWeights: Record<KeyMode, Partial<Record<(typeof REGISTERS)[number], number>>>;
  mode: {
    profiles: Record<(typeof MODE_REGISTERS)[number], NamedProfile>;
    registerWeights: Record<(typeof MODE_REGISTERS)[number], number>;
    bias: number;
  };
  /** The re-rank of the first choice's neighbours by the start and end chroma (decision 0164); absent: none. */
  rerank?: ReRank;
}

const listed = (profile: NamedProfile): number[] => INTERVALS.map((interval) => profile[interval]);
const named = (values: readonly number[]): NamedProfile =>
  Object.fromEntries(INTERVALS.map((interval, i) => [interval, values[i]!])) as NamedProfile;

type Register = (typeof REGISTERS)[number];

/** The analyzer's profiles of a weight file. */
export function keyProfilesOf(file: Pick<KeyWeightsFile, 'profiles' | 'registerWeights' | 'mode' | 'rerank'>): KeyProfiles {
  const flat: number[] = Array(12).fill(0);
  const register = (r: Register) => {
    const profile = file.profiles[r];
    return profile ? { major: listed(profile.major), minor: listed(profile.minor) } : { major: flat, minor: flat };
  };
  const weightsOf = (mode: KeyMode) =>
    Object.fromEntries(REGISTERS.map((r) => [r, file.profiles[r] ? (file.registerWeights[mode][r] ?? 0) : 0])) as Record<Register, number>;
  return {
    ...(Object.fromEntries(REGISTERS.map((r) => [r, register(r)])) as Record<Register, Record<KeyMode, number[]>>),
    weights: { major: weightsOf('major'), minor: weightsOf('minor') },
    mode: {
      profiles: { lead: listed(file.mode.profiles.lead), treble: listed(file.mode.profiles.treble) },
      weights: file.mode.registerWeights,
      bias: file.mode.bias,
    },
    rerank: file.rerank ?? null,
  };
}

/** The weight file of the analyzer's profiles (what tune.ts writes). */
export function keyWeightsFileOf(profiles: KeyProfiles, about: string, provenance: Record<string, unknown>): KeyWeightsFile {
  const read = REGISTERS.filter((r) => profiles.weights.major[r] !== 0 || profiles.weights.minor[r] !== 0);
  const weightsOf = (mode: KeyMode) => Object.fromEntries(read.map((r) => [r, profiles.weights[mode][r]]));
  return {
    about,
    provenance,
    profiles: Object.fromEntries(read.map((r) => [r, { major: named(profiles[r].major), minor: named(profiles[r].minor) }])),
    registerWeights: { major: weightsOf('major'), minor: weightsOf('minor') },
    mode: {
      profiles: { lead: named(profiles.mode.profiles.lead), treble: named(profiles.mode.profiles.treble) },
      registerWeights: profiles.mode.weights,
      bias: profiles.mode.bias,
    },
    ...(profiles.rerank ? { rerank: profiles.rerank } : {}),
  };
}

/**
 * Profiles and register weights learned discriminatively on the tuning split of bench/accuracy
 * (decisions 0140, 0143): the weights of a logistic regression over the 24 keys, each register's
 * scaled to 0…1, and their lengths; the mode's profiles likewise, of a logistic regression of minor
 * against major at the true tonic. They tell a key from its neighbours rather than describe it, so
 * their largest values need not sit on the scale's degrees. bench/accuracy/tune.ts writes them, by
 * interval name and with their provenance, to key-weights.json (decision 0162); never learned on
 * an evaluation set.
 */
export const KEY_PROFILES: KeyProfiles = keyProfilesOf(keyWeights);
