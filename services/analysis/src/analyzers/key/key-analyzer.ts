import { KEY_MODES, type KeyMode, type KeyResult } from '@catalog/contracts';
import { FrameSlicer } from '../dsp/frame-slicer.js';
import { MagnitudeSpectrum } from '../dsp/spectrum.js';
import { camelot, correlation, KEY_PROFILES, tonicName } from './key-profiles.js';

const FRAME = 4096;
const HOP = 2048;
/** Pitches read: C2 (65 Hz) to C7 (2093 Hz). */
const LOWEST_MIDI = 36;
const HIGHEST_MIDI = 84;
/** Frames quieter than this (summed magnitude) carry no pitch. */
const SILENT_FRAME = 1e-3;

/**
 * `key` from the mono stream: a chroma vector (energy of each pitch class, every frame weighted
 * alike) summed over the whole file, correlated with the Krumhansl–Kessler profiles of the 24
 * keys; the best correlation is the strength.
 */
export class KeyAnalyzer {
  private readonly slicer: FrameSlicer;
  private readonly spectrum = new MagnitudeSpectrum(FRAME);
  private readonly chroma = new Float64Array(12);
  private readonly frameChroma = new Float64Array(12);
  private readonly bins: Int32Array;
  private readonly classes: Int32Array;
  private readonly weights: Float32Array;

  constructor(sampleRate: number) {
    const bins: number[] = [],
      classes: number[] = [],
      weights: number[] = [];
    for (let k = 1; k <= FRAME / 2; k++) {
      const midi = 69 + 12 * Math.log2((k * sampleRate) / FRAME / 440);
      if (midi < LOWEST_MIDI - 0.5 || midi > HIGHEST_MIDI + 0.5) continue;
      const distance = midi - Math.round(midi);
      bins.push(k);
      classes.push(((Math.round(midi) % 12) + 12) % 12);
      weights.push(Math.cos(Math.PI * distance) ** 2);
    }
    this.bins = Int32Array.from(bins);
    this.classes = Int32Array.from(classes);
    this.weights = Float32Array.from(weights);
    this.slicer = new FrameSlicer(FRAME, HOP, (frame) => this.frame(frame));
  }

  write(samples: Float32Array, count: number): void {
    this.slicer.write(samples, count);
  }

  private frame(frame: Float32Array): void {
    const magnitudes = this.spectrum.compute(frame);
    const frameChroma = this.frameChroma.fill(0);
    let total = 0;
    for (let i = 0; i < this.bins.length; i++) {
      const m = magnitudes[this.bins[i]!]!;
      const energy = this.weights[i]! * Math.log1p(1000 * m);
      frameChroma[this.classes[i]!]! += energy;
      total += energy;
    }
    if (Math.sqrt(total) < SILENT_FRAME) return;
    for (let c = 0; c < 12; c++) this.chroma[c]! += frameChroma[c]! / total;
  }

  result(): KeyResult {
    let best = { tonic: -1, mode: 'major' as KeyMode, r: -Infinity };
    for (const mode of KEY_MODES) {
      for (let tonic = 0; tonic < 12; tonic++) {
        const r = correlation(this.chroma, KEY_PROFILES[mode], tonic);
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
