import { FrameSlicer } from '../dsp/frame-slicer.js';
import { MagnitudeSpectrum } from '../dsp/spectrum.js';
import { CappedSeries } from './capped-series.js';

export const CHROMA_FRAME = 2048;
export const CHROMA_HOP = 1024;
const PITCH_CLASSES = 12;
/** Pitches read: above most bass notes (whose root and fifth alternate within a bar) up to where partials blur. */
const LOWEST_HZ = 250;
const HIGHEST_HZ = 2000;
/** Log compression of a pitch class's magnitude: log(1 + γ |X|). */
const GAMMA = 100;

/**
 * Coarse chroma of a mono stream for the tempo's octave choice (decision 0144): CHROMA_FRAME-sample
 * Hann frames every CHROMA_HOP samples, each bin from LOWEST_HZ to HIGHEST_HZ added to its nearest
 * pitch class, log-compressed and scaled to unit length; the first `maxFrames` frames kept.
 */
export class ChromaSeries {
  readonly frameRate: number;
  private readonly slicer: FrameSlicer;
  private readonly spectrum = new MagnitudeSpectrum(CHROMA_FRAME);
  private readonly pitchClassOfBin: Int8Array;
  private readonly series: CappedSeries;
  private readonly vector = new Float64Array(PITCH_CLASSES);

  constructor(sampleRate: number, maxFrames: number) {
    this.frameRate = sampleRate / CHROMA_HOP;
    this.pitchClassOfBin = new Int8Array(CHROMA_FRAME / 2 + 1).fill(-1);
    for (let k = 1; k < this.pitchClassOfBin.length; k++) {
      const hz = (k * sampleRate) / CHROMA_FRAME;
      // Semitones above A, folded onto C = 0.
      if (hz >= LOWEST_HZ && hz <= HIGHEST_HZ) this.pitchClassOfBin[k] = (((Math.round(12 * Math.log2(hz / 440)) + 9) % 12) + 12) % 12;
    }
    this.series = new CappedSeries(maxFrames * PITCH_CLASSES);
    this.slicer = new FrameSlicer(CHROMA_FRAME, CHROMA_HOP, (frame) => this.frame(frame));
  }

  write(samples: Float32Array, count: number): void {
    this.slicer.write(samples, count);
  }

  /** The chroma vectors, PITCH_CLASSES values a frame (C first). */
  values(): Float32Array {
    return this.series.values();
  }

  private frame(frame: Float32Array): void {
    const magnitudes = this.spectrum.compute(frame);
    const vector = this.vector.fill(0);
    const pitchClassOfBin = this.pitchClassOfBin;
    for (let k = 1; k < magnitudes.length; k++) {
      const pc = pitchClassOfBin[k]!;
      if (pc >= 0) vector[pc]! += magnitudes[k]!;
    }
    let norm = 0;
    for (let pc = 0; pc < PITCH_CLASSES; pc++) {
      vector[pc] = Math.log1p(GAMMA * vector[pc]!);
      norm += vector[pc]! * vector[pc]!;
    }
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let pc = 0; pc < PITCH_CLASSES; pc++) this.series.push(vector[pc]! * scale);
  }
}

/**
 * How much the harmony changes at each chroma frame: 1 − the cosine between the summed chroma of
 * the `half` frames before it and of the `half` frames from it on; 0 where a side runs past the
 * series or is silent. Prefix sums: linear in the series' length whatever `half` is.
 */
export function harmonicChange(chroma: Float32Array, half: number): Float32Array {
  const frames = Math.floor(chroma.length / PITCH_CLASSES);
  const prefix = new Float64Array((frames + 1) * PITCH_CLASSES);
  for (let t = 0; t < frames; t++)
    for (let pc = 0; pc < PITCH_CLASSES; pc++)
      prefix[(t + 1) * PITCH_CLASSES + pc] = prefix[t * PITCH_CLASSES + pc]! + chroma[t * PITCH_CLASSES + pc]!;
  const change = new Float32Array(frames);
  for (let t = half; t + half <= frames; t++) {
    let dot = 0;
    let before = 0;
    let after = 0;
    for (let pc = 0; pc < PITCH_CLASSES; pc++) {
      const mid = prefix[t * PITCH_CLASSES + pc]!;
      const a = mid - prefix[(t - half) * PITCH_CLASSES + pc]!;
      const b = prefix[(t + half) * PITCH_CLASSES + pc]! - mid;
      dot += a * b;
      before += a * a;
      after += b * b;
    }
    change[t] = before > 0 && after > 0 ? 1 - dot / Math.sqrt(before * after) : 0;
  }
  return change;
}

/** The autocorrelation of a series less its mean at a fractional lag (linear between lags), over its variance. */
export function normalisedAutocorrelation(series: Float32Array, lag: number): number {
  const n = series.length;
  let mean = 0;
  for (let t = 0; t < n; t++) mean += series[t]!;
  mean /= Math.max(1, n);
  const whole = Math.floor(lag);
  const fraction = lag - whole;
  let variance = 0;
  let sum = 0;
  for (let t = 0; t < n; t++) {
    const centred = series[t]! - mean;
    variance += centred * centred;
    if (t + whole + 1 < n) sum += centred * (series[t + whole]! * (1 - fraction) + series[t + whole + 1]! * fraction - mean);
  }
  return variance > 0 ? sum / variance : 0;
}

/**
 * How alike the chroma `lag` frames apart is beyond the series' mean chroma: the mean cosine between
 * each frame's and the frame `lag` later's departures from the mean (decision 0189); 0 when no pair
 * departs. Held harmony (a chord over a beat, a melody note, percussive or not) keeps it near 1;
 * speech, whose pitch glides from syllable to syllable, and noise, whose spectrum departs from its
 * mean at random, keep it near 0.
 */
export function harmonyPersistence(chroma: Float32Array, lag: number): number {
  const frames = Math.floor(chroma.length / PITCH_CLASSES);
  const mean = new Float64Array(PITCH_CLASSES);
  for (let t = 0; t < frames; t++) for (let pc = 0; pc < PITCH_CLASSES; pc++) mean[pc]! += chroma[t * PITCH_CLASSES + pc]! / frames;
  let sum = 0;
  let pairs = 0;
  for (let t = 0; t + lag < frames; t++) {
    let dot = 0;
    let now = 0;
    let later = 0;
    for (let pc = 0; pc < PITCH_CLASSES; pc++) {
      const a = chroma[t * PITCH_CLASSES + pc]! - mean[pc]!;
      const b = chroma[(t + lag) * PITCH_CLASSES + pc]! - mean[pc]!;
      dot += a * b;
      now += a * a;
      later += b * b;
    }
    if (now > 0 && later > 0) {
      sum += dot / Math.sqrt(now * later);
      pairs++;
    }
  }
  return pairs > 0 ? sum / pairs : 0;
}
