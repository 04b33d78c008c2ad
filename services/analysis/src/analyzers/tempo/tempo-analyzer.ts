import { MAX_BEATS, type NoBpmReason, type TempoResult } from '@catalog/contracts';
import { trackBeats } from './beat-tracker.js';
import { CappedSeries } from './capped-series.js';
import { CHROMA_HOP, ChromaSeries, harmonyPersistence } from './harmonic-change.js';
import { ONSET_FRAME, ONSET_HOP, OnsetDetector } from './onset.js';
import { StreamingAutocorrelation } from './periodicity.js';
import {
  chooseOctave,
  combAt,
  maxLagFor,
  octaveEvidences,
  periodFrames,
  refineTempo,
  strongestTempo,
  type OctaveEvidence,
  type OctaveSeries,
} from './tempo-estimate.js';

/** Onset strength kept for beat tracking and octave checks: the first 10 minutes (bounded memory). */
const TRACKED_SECONDS = 600;
/**
 * A steady beat to report (decision 0189): a periodicity of either stream of at least this on its
 * own (espeak-ng's speech reaches 0.081, white, pink and brown noise 0.031), or of at least
 * PITCHED_MIN_PERIODICITY where the harmony persists over HARMONY_LAG_SECONDS at least
 * MIN_PERSISTENCE: a chorale or a ballad whose chords change without attacks reaches 0.49 there,
 * speech 0.15 and noise 0.02 (bench/accuracy/steadiness.ts: the tuning split, speech and noise).
 */
const MIN_PERIODICITY = 0.12;
const PITCHED_MIN_PERIODICITY = 0.02;
const MIN_PERSISTENCE = 0.3;
const HARMONY_LAG_SECONDS = 0.25;
/** A tonal flux this periodic is periodic enough to hold an organ's tremolo off (decision 0188). */
const PERIODIC = 0.05;
/** The tonal flux carries the beat when its periodicity is this many times the onset strength's. */
const TONAL_LEAD = 1.5;
/** Where in its onset frame an attack lies when the flux peaks (share of the frame; measured on rendered drums). */
const ONSET_LATENCY = 0.45;
const BEATS_PER_BAR = 4;
/** Frames around a beat whose low-band flux is its accent (an attack's flux spreads over frames). */
const ACCENT_BEFORE = 2;
const ACCENT_AFTER = 4;
/** Bars read for the bar phase. */
const DOWNBEAT_BARS = 64;

/**
 * `tempo` from the mono stream: the autocorrelation over the whole file of the onset strength, or
 * of the tonal flux where that is far more periodic (decision 0163), gives the tempo (comb over
 * four multiples of the period), a learned score on the stored stream and chroma its octave
 * (decisions 0140, 0144, 0163), a dynamic-programming beat tracker the beats, and the low band's
 * accents the bar phase.
 */
export class TempoAnalyzer {
  private readonly detector: OnsetDetector;
  private readonly frameRate: number;
  private readonly acf: StreamingAutocorrelation;
  private readonly tonalAcf: StreamingAutocorrelation;
  private readonly strength: CappedSeries;
  private readonly tonal: CappedSeries;
  private readonly low: CappedSeries;
  private readonly chroma: ChromaSeries;

  constructor(private readonly sampleRate: number) {
    this.frameRate = sampleRate / ONSET_HOP;
    this.acf = new StreamingAutocorrelation(maxLagFor(this.frameRate));
    this.tonalAcf = new StreamingAutocorrelation(maxLagFor(this.frameRate));
    const cap = Math.ceil(TRACKED_SECONDS * this.frameRate);
    this.strength = new CappedSeries(cap);
    this.low = new CappedSeries(cap);
    this.tonal = new CappedSeries(cap);
    this.chroma = new ChromaSeries(sampleRate, Math.ceil((TRACKED_SECONDS * sampleRate) / CHROMA_HOP));
    this.detector = new OnsetDetector(sampleRate, (flux, lowFlux, tonalFlux) => {
      this.acf.add(flux);
      this.strength.push(flux);
      this.low.push(lowFlux);
      this.tonalAcf.add(tonalFlux);
      this.tonal.push(tonalFlux);
    });
  }

  write(samples: Float32Array, count: number): void {
    this.detector.write(samples, count);
    this.chroma.write(samples, count);
  }

  /** What the octave choice reads (for learning its weights: bench/accuracy/tune.ts); none without a beat. */
  octaveEvidences(): OctaveEvidence[] {
    const pulse = this.pulse();
    return pulse?.steady ? octaveEvidences(pulse.bpm, this.octaveSeries(pulse), this.frameRate) : [];
  }

  private octaveSeries(pulse: Pulse): OctaveSeries {
    const harmony = { chroma: this.chroma.values(), frameRate: this.chroma.frameRate };
    return { strength: pulse.strength, low: normalised(this.low.values()), acf: pulse.acf, harmony };
  }

  /**
   * The stream the beat is read from: the onset strength, or the tonal flux where that is far
   * more periodic (sustained instruments changing notes without attacks) or where the onset
   * strength's tempo leaves no trace in it (decision 0188: an organ's tremolo swells the onset
   * strength but changes no note; the tonal flux's comb there is not positive); its comb tempo, its
   * periodicity (the comb's salience over four times its energy, 0–1) and whether either stream
   * is periodic enough to hold a beat. Null when silent.
   */
  pulse(): Pulse | null {
    const onset = periodicityOf(this.acf, this.frameRate);
    if (!onset) return null;
    const tonal = periodicityOf(this.tonalAcf, this.frameRate);
    const steady = this.steady(Math.max(onset.periodicity, tonal?.periodicity ?? 0));
    const tremolo = tonal !== null && tonal.periodicity >= PERIODIC && combAt(this.tonalAcf, onset.bpm, this.frameRate) <= 0;
    if (tonal && (tremolo || tonal.periodicity > TONAL_LEAD * onset.periodicity))
      return { ...tonal, steady, tonal: true, acf: this.tonalAcf, strength: normalised(this.tonal.values()) };
    return { ...onset, steady, tonal: false, acf: this.acf, strength: normalised(this.strength.values()) };
  }

  /** How the harmony persists over a quarter of a second (harmonyPersistence(); decision 0189). */
  persistence(): number {
    return harmonyPersistence(this.chroma.values(), Math.max(1, Math.round(HARMONY_LAG_SECONDS * this.chroma.frameRate)));
  }

  /** Whether a stream's periodicity holds a beat: on its own, or with harmony that persists (decision 0189). */
  private steady(periodicity: number): boolean {
    if (periodicity >= MIN_PERIODICITY) return true;
    return periodicity >= PITCHED_MIN_PERIODICITY && this.persistence() >= MIN_PERSISTENCE;
  }

  result(): TempoResult {
    // No BPM says why (decision 0191). Silence: confidence 0. Audio without a steady pulse (speech, noise): the periodicity found.
    const none = (noBpmReason: NoBpmReason, confidence: number): TempoResult => ({
      bpm: null,
      confidence,
      noBpmReason,
      firstBeatMs: null,
      firstDownbeatMs: null,
      beatsMs: [],
    });
    const pulse = this.pulse();
    if (!pulse) return none('silence', 0);
    if (!pulse.steady) return none('no_steady_pulse', round(pulse.periodicity, 2));
    const octave = chooseOctave(pulse.bpm, octaveEvidences(pulse.bpm, this.octaveSeries(pulse), this.frameRate));
    // How periodic the stream is, times how sure the octave choice is (decision 0144).
    const confidence = pulse.periodicity * octave.probability;
    const bpm = refineTempo(pulse.acf, this.frameRate, octave.bpm);
    const beats = trackBeats(pulse.strength, periodFrames(bpm, this.frameRate));
    const toMs = (frame: number) => Math.round(((frame * ONSET_HOP + ONSET_LATENCY * ONSET_FRAME) / this.sampleRate) * 1000);
    const downbeat = barPhase(beats, this.low.values());
    return {
      bpm: round(bpm, 1),
      confidence: round(confidence, 2),
      firstBeatMs: beats.length > 0 ? toMs(beats[0]!) : null,
      firstDownbeatMs: beats.length > downbeat ? toMs(beats[downbeat]!) : null,
      beatsMs: beats.slice(0, MAX_BEATS).map(toMs),
    };
  }
}

interface Pulse {
  bpm: number;
  periodicity: number;
  steady: boolean;
  tonal: boolean;
  acf: StreamingAutocorrelation;
  /** The stream, normalised (normalised()). */
  strength: Float32Array;
}

function periodicityOf(acf: StreamingAutocorrelation, frameRate: number): { periodicity: number; bpm: number } | null {
  const energy = acf.sums[0]!;
  if (!(energy > 0)) return null;
  const { bpm, salience } = strongestTempo(acf, frameRate);
  return { periodicity: Math.min(1, Math.max(0, salience / (4 * energy))), bpm };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** The onset strength less its moving mean, half-wave rectified, over its standard deviation. */
function normalised(values: Float32Array): Float32Array {
  const out = new Float32Array(values.length);
  const half = 21;
  let sum = 0;
  let sumSquares = 0;
  for (let t = 0; t < values.length; t++) {
    let mean = 0;
    const from = Math.max(0, t - half);
    const to = Math.min(values.length - 1, t + half);
    for (let u = from; u <= to; u++) mean += values[u]!;
    mean /= to - from + 1;
    out[t] = Math.max(0, values[t]! - mean);
    sum += out[t]!;
    sumSquares += out[t]! * out[t]!;
  }
  const sd = Math.sqrt(Math.max(0, sumSquares / Math.max(1, values.length) - (sum / Math.max(1, values.length)) ** 2));
  if (sd > 0) for (let t = 0; t < out.length; t++) out[t]! /= sd;
  return out;
}

/**
 * Index (0–3) of the first downbeat among the beats: the beat-in-bar whose low-band accents are
 * strongest on average over the first bars (4/4 assumed); of phases within 10 % of the strongest,
 * the earliest.
 */
function barPhase(beats: number[], low: Float32Array): number {
  const sums = new Float64Array(BEATS_PER_BAR);
  const counts = new Float64Array(BEATS_PER_BAR);
  const limit = Math.min(beats.length, DOWNBEAT_BARS * BEATS_PER_BAR);
  for (let i = 0; i < limit; i++) {
    const t = beats[i]!;
    for (let u = Math.max(0, t - ACCENT_BEFORE); u <= Math.min(low.length - 1, t + ACCENT_AFTER); u++) sums[i % BEATS_PER_BAR]! += low[u]!;
    counts[i % BEATS_PER_BAR]! += 1;
  }
  const means = sums.map((sum, phase) => (counts[phase]! > 0 ? sum / counts[phase]! : 0));
  const strongest = Math.max(...means);
  for (let phase = 0; phase < BEATS_PER_BAR; phase++) if (means[phase]! >= 0.9 * strongest) return phase;
  return 0;
}
