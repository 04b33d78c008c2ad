import { KEY_MODES, type KeyMode, type KeyResult } from '@catalog/contracts';
import { FrameSlicer } from '../dsp/frame-slicer.js';
import { MagnitudeSpectrum } from '../dsp/spectrum.js';
import {
  camelot,
  correlation,
  MODE_REGISTERS,
  REGISTERS,
  tonicName,
  type KeyProfiles,
  type ModeRegister,
  type Register,
} from './key-profiles.js';
import { reRanked, type Key } from './key-rerank.js';
import { KEY_PROFILES } from './key-weights.js';
import { FINE_BINS, foldChroma, PitchHistogram, tuningOffset, type PeakRange } from './pitch-histogram.js';

export interface KeySettings extends PeakRange {
  frame: number;
  hop: number;
  /** Seconds of sounding frames at the end whose bass and treble are the end chroma (where the piece comes to rest). */
  endSeconds: number;
  /** Seconds of sounding frames at the start whose bass and treble are the start chroma (the chord a loop starts on). */
  startSeconds: number;
  profiles: KeyProfiles;
}

export const KEY_SETTINGS: KeySettings = {
  frame: 8192,
  hop: 4096,
  lowest: 28,
  bassBelow: 50,
  highest: 96,
  compression: 1000,
  silent: 1e-3,
  prominence: 2.5,
  endSeconds: 2,
  startSeconds: 2,
  profiles: KEY_PROFILES,
};

/**
 * `key` from the mono stream: pitch-class histograms at 10-cent resolution of the spectral peaks
 * (bass register and above, every sounding frame weighted alike) summed over the whole file, and
 * the bass of the last seconds and the lead (each frame's strongest peak above the bass) apart; the
 * tuning (how far off A440 the peaks sit) read from them before they are folded into chroma
 * vectors; the tonic that of the best of the 24 keys, each scored by the weighted sum of the
 * treble's, bass's and end bass's correlations with its profiles, the mode at that tonic from the
 * lead and the treble; profiles and weights learned discriminatively on the accuracy benchmark's
 * tuning split (decisions 0121, 0140, 0143).
 */
export class KeyAnalyzer {
  private readonly slicer: FrameSlicer;
  private readonly spectrum: MagnitudeSpectrum;
  private readonly histogram: PitchHistogram;

  constructor(
    sampleRate: number,
    private readonly settings: KeySettings = KEY_SETTINGS,
  ) {
    this.spectrum = new MagnitudeSpectrum(settings.frame);
    const frames = (seconds: number) => Math.max(1, Math.round((seconds * sampleRate) / settings.hop));
    this.histogram = new PitchHistogram(sampleRate, settings.frame, {
      ...settings,
      startFrames: frames(settings.startSeconds),
      endFrames: frames(settings.endSeconds),
    });
    this.slicer = new FrameSlicer(settings.frame, settings.hop, (frame) => this.histogram.add(this.spectrum.compute(frame)));
  }

  write(samples: Float32Array, count: number): void {
    this.slicer.write(samples, count);
  }

  /** The tuning (cents off A440) and the chroma vectors (C first), tuning applied. */
  features(): { tuningCents: number } & KeyChroma {
    const { bass, treble, lead } = this.histogram;
    const all = new Float64Array(FINE_BINS);
    for (let j = 0; j < FINE_BINS; j++) all[j] = bass[j]! + treble[j]!;
    const offset = tuningOffset(all);
    return {
      tuningCents: offset * 10,
      bass: foldChroma(bass, offset),
      treble: foldChroma(treble, offset),
      endBass: foldChroma(this.histogram.endBass(), offset),
      startBass: foldChroma(this.histogram.startBass(), offset),
      startTreble: foldChroma(this.histogram.startTreble(), offset),
      endTreble: foldChroma(this.histogram.endTreble(), offset),
      lead: foldChroma(lead, offset),
    };
  }

  /** The key of the chroma vectors (keyOfChroma). */
  result(): KeyResult {
    return keyOfChroma(this.features(), this.settings.profiles);
  }
}

export type KeyChroma = Record<Register | ModeRegister, Float64Array>;

/**
 * The tonic of the best of the 24 keys' scores; then the mode at that tonic from the evidence of
 * the lead and the treble, which a bass note's overtones barely reach (decision 0143); then, when
 * the profiles carry a re-rank, that key or its relative or a key a fifth away whose score is close,
 * by the chord the piece starts and ends on (decision 0164).
 */
export function keyOfChroma(chroma: KeyChroma, profiles: KeyProfiles): KeyResult {
  const choice = firstChoice(chroma, profiles);
  if (!choice) return NO_KEY;
  const { first, scoreOf } = choice;
  const { tonic: pitchClass, mode } = profiles.rerank ? reRanked(chroma, first, scoreOf, profiles.rerank) : first;
  const r = scoreOf({ tonic: pitchClass, mode });
  if (!(r > 0)) return NO_KEY;
  const tonic = tonicName(pitchClass, mode);
  return { key: `${tonic} ${mode}`, tonic, mode, camelot: camelot(pitchClass, mode), strength: Math.round(Math.min(1, r) * 100) / 100 };
}

/**
 * The key before the re-rank (the best score's tonic, the mode at it), and each key's score over
 * its mode's register weights; null when no key scores.
 */
export function firstChoice(chroma: KeyChroma, profiles: KeyProfiles): { first: Key; scoreOf: (key: Key) => number } | null {
  let best = { tonic: -1, score: -Infinity };
  for (const mode of KEY_MODES)
    for (let tonic = 0; tonic < 12; tonic++) {
      const score = keyScore(chroma, profiles, tonic, mode);
      if (score > best.score) best = { tonic, score };
    }
  if (best.tonic < 0) return null;
  const scoreOf = (key: Key) =>
    keyScore(chroma, profiles, key.tonic, key.mode) / REGISTERS.reduce((sum, register) => sum + profiles.weights[key.mode][register], 0);
  return { first: { tonic: best.tonic, mode: modeAt(chroma, profiles.mode, best.tonic) }, scoreOf };
}

/** A key's score: each register's correlation with the key's profile, times the register's weight (0: not read). */
function keyScore(chroma: Record<Register, Float64Array>, profiles: KeyProfiles, tonic: number, mode: KeyMode): number {
  let score = 0;
  for (const register of REGISTERS) {
    const weight = profiles.weights[mode][register];
    if (weight !== 0) score += weight * correlation(chroma[register], profiles[register][mode], tonic);
  }
  return score;
}

function modeAt(chroma: Record<ModeRegister, Float64Array>, mode: KeyProfiles['mode'], tonic: number): KeyMode {
  const { profiles, weights, bias } = mode;
  let score = bias;
  for (const register of MODE_REGISTERS) score += weights[register] * correlation(chroma[register], profiles[register], tonic);
  return score > 0 ? 'minor' : 'major';
}

const NO_KEY: KeyResult = { key: null, tonic: null, mode: null, camelot: null, strength: 0 };
