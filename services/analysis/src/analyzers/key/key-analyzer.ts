import { KEY_MODES, type KeyMode, type KeyResult } from '@catalog/contracts';
import { FrameSlicer } from '../dsp/frame-slicer.js';
import { MagnitudeSpectrum } from '../dsp/spectrum.js';
import { camelot, correlation, KEY_PROFILES, tonicName, type KeyProfiles } from './key-profiles.js';
import { FINE_BINS, foldChroma, PitchHistogram, tuningOffset } from './pitch-histogram.js';

export interface KeySettings {
  frame: number;
  hop: number;
  /** Pitches read (MIDI): lowest … highest; below bassBelow is the bass register. */
  lowest: number;
  bassBelow: number;
  highest: number;
  /** Peak weight: log(1 + compression × magnitude). */
  compression: number;
  /** Frames whose summed peak weight is below this carry no pitch. */
  silent: number;
  /** A peak counts if it is this many times the mean magnitude of the bins around it. */
  prominence: number;
  /** Weight of the bass chroma's correlation beside the treble's. */
  bassWeight: number;
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
  bassWeight: 0.25,
  profiles: KEY_PROFILES,
};

/**
 * `key` from the mono stream: pitch-class histograms at 10-cent resolution of the spectral peaks
 * (bass register and above, every sounding frame weighted alike) summed over the whole file; the
 * tuning (how far off A440 the peaks sit) read from them before they are folded into two chroma
 * vectors; each of the 24 keys scored by the correlation of the treble chroma with its profile
 * plus a share of the bass chroma's with its bass profile (decision 0121).
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
    this.histogram = new PitchHistogram(sampleRate, settings.frame, settings);
    this.slicer = new FrameSlicer(settings.frame, settings.hop, (frame) => this.histogram.add(this.spectrum.compute(frame)));
  }

  write(samples: Float32Array, count: number): void {
    this.slicer.write(samples, count);
  }

  /** The tuning (cents off A440) and the two chroma vectors (C first), tuning applied. */
  features(): { tuningCents: number; bass: Float64Array; treble: Float64Array } {
    const all = new Float64Array(FINE_BINS);
    for (let j = 0; j < FINE_BINS; j++) all[j] = this.histogram.bass[j]! + this.histogram.treble[j]!;
    const offset = tuningOffset(all);
    return { tuningCents: offset * 10, bass: foldChroma(this.histogram.bass, offset), treble: foldChroma(this.histogram.treble, offset) };
  }

  result(): KeyResult {
    const { bass, treble } = this.features();
    const { profiles, bassWeight } = this.settings;
    let best = { tonic: -1, mode: 'major' as KeyMode, r: -Infinity };
    for (const mode of KEY_MODES) {
      for (let tonic = 0; tonic < 12; tonic++) {
        const r =
          (correlation(treble, profiles.treble[mode], tonic) + bassWeight * correlation(bass, profiles.bass[mode], tonic)) /
          (1 + bassWeight);
        if (r > best.r) best = { tonic, mode, r };
      }
    }
    if (best.tonic < 0 || !(best.r > 0)) return { key: null, tonic: null, mode: null, camelot: null, strength: 0 };
    const tonic = tonicName(best.tonic, best.mode);
    return {
      key: `${tonic} ${best.mode}`,
      tonic,
      mode: best.mode,
      camelot: camelot(best.tonic, best.mode),
      strength: Math.round(best.r * 100) / 100,
    };
  }
}
