import { harmonicChange, normalisedAutocorrelation } from './harmonic-change.js';
import octaveWeights from './octave-weights.json' with { type: 'json' };
import { octaveWeightsOf } from './octave-weights.js';
import { combSalience, type StreamingAutocorrelation } from './periodicity.js';

/** The comb's tempo range (beats per minute). */
const MIN_BPM = 60;
const MAX_BPM = 200;
/** The slowest beat reported: half the comb's slow level, for slow chorales and hymns. */
const LOWEST_BPM = 40;
const GRID_BPM = 0.05;
const HARMONICS = 4;
/** Mild preference for moderate tempi: log-normal around 120 BPM, one octave wide. */
const PRIOR_CENTRE = 120;
const PRIOR_OCTAVES = 1;
/**
 * The octave choice between two levels, a slow one and twice it (the comb's, then, if the slow
 * one wins, the pair below: decision 0163): a logistic score over what the onsets say of them (their off-beats, in all bands and in the low
 * band; the off-beats of half the slow level and of twice it; how strong the onsets off the slow
 * beat are against those on it, since a chorale's passing eighths are single voices and its chords on
 * the beat all of them (decision 0192); the comb's salience of the fast level
 * against the slow, of the onset strength, and of where onsets are against the slow and the slow
 * against twice it; how fast the slow level is) and over where the harmony changes (at half a bar
 * of the slow level as well as at its bar, or not, at half a beat as well as at the beat, and at
 * the beat as well as at two beats: decision 0186);
 * the fast level is the beat when the score is
 * positive. The other off-beats and the second comb read where onsets are, not how strong they are:
 * that hangs on the instruments' touch and the mix (decision 0146). Weights learned on the accuracy
 * benchmark's tuning split as written and replayed (decisions 0140, 0144, 0146, 0163, 0186, 0192); bench/accuracy/
 * tune.ts writes them by feature name, with their provenance, to octave-weights.json (decision
 * 0162); here in the order of OctaveEvidence.features, the constant last.
 */
export const OCTAVE_WEIGHTS: readonly number[] = octaveWeightsOf(octaveWeights);
const PHASE_BINS = 16;
const FOLD_PERIODS = 8;
const BEATS_PER_BAR = 4;
/** A frame holds an onset when its normalised strength is this many standard deviations above the local mean. */
const ONSET_PRESENCE = 1;
/** Multiples of a period the presence comb reads. */
const PRESENCE_COMB = [1, 2, 3, 4];

export const periodFrames = (bpm: number, frameRate: number) => (60 * frameRate) / bpm;

/** Autocorrelation lags the comb reads at LOWEST_BPM (the octave evidence reads it down there). */
/** The comb's salience of `acf` at `bpm` (HARMONICS multiples of its period). */
export const combAt = (acf: StreamingAutocorrelation, bpm: number, frameRate: number) =>
  combSalience(acf, periodFrames(bpm, frameRate), HARMONICS);
export const maxLagFor = (frameRate: number) => Math.ceil(HARMONICS * periodFrames(LOWEST_BPM, frameRate)) + 2;

/** The comb's best tempo on a 0.05 BPM grid, weighted by the prior, and its salience. */
export function strongestTempo(acf: StreamingAutocorrelation, frameRate: number): { bpm: number; salience: number } {
  let bestBpm = 0;
  let bestScore = -Infinity;
  let bestSalience = 0;
  for (let bpm = MIN_BPM; bpm <= MAX_BPM + 1e-9; bpm += GRID_BPM) {
    const salience = combAt(acf, bpm, frameRate);
    const score = salience * Math.exp(-0.5 * (Math.log2(bpm / PRIOR_CENTRE) / PRIOR_OCTAVES) ** 2);
    if (score > bestScore) {
      bestScore = score;
      bestBpm = bpm;
      bestSalience = salience;
    }
  }
  return { bpm: bestBpm, salience: bestSalience };
}

/** Refines a grid tempo to the comb's peak within ±2 % (the comb's maximum, no prior). */
export function refineTempo(acf: StreamingAutocorrelation, frameRate: number, bpm: number): number {
  let best = bpm;
  let bestSalience = -Infinity;
  for (let candidate = bpm * 0.98; candidate <= bpm * 1.02; candidate += 0.01) {
    const salience = combAt(acf, candidate, frameRate);
    if (salience > bestSalience) {
      bestSalience = salience;
      best = candidate;
    }
  }
  return best;
}

/** What the octave choice reads: the slow level (BPM) and the features of the choice, 1 last. */
export interface OctaveEvidence {
  slow: number;
  features: number[];
}

/** What the octave choice reads of a stream: onset strengths, their autocorrelation and the chroma. */
export interface OctaveSeries {
  /** The normalised onset strengths of all bands and of the low band, at the onset frame rate. */
  strength: Float32Array;
  low: Float32Array;
  acf: StreamingAutocorrelation;
  /** Chroma vectors (12 values a frame) and their frame rate (harmonic-change.ts). */
  harmony: { chroma: Float32Array; frameRate: number };
}

/** The comb tempo's octave in MIN_BPM…2·MIN_BPM: the slow level of the first pair of levels the beat may be at. */
function slowLevel(bpm: number): number {
  let slow = bpm;
  while (slow / 2 >= MIN_BPM) slow /= 2;
  while (slow < MIN_BPM) slow *= 2;
  return slow;
}

/**
 * The evidence on each pair of levels (slow, twice it) a comb tempo's beat is chosen between, in
 * the order chooseOctave reads them: the comb's slow level and twice it (when twice it is at most
 * MAX_BPM), then half the slow level and the slow level (when half is at least LOWEST_BPM).
 */
export function octaveEvidences(bpm: number, series: OctaveSeries, frameRate: number): OctaveEvidence[] {
  const slow = slowLevel(bpm);
  return [
    ...(slow * 2 <= MAX_BPM ? [octaveEvidence(slow, series, frameRate)] : []),
    ...(slow / 2 >= LOWEST_BPM ? [octaveEvidence(slow / 2, series, frameRate)] : []),
  ];
}

/** The evidence on whether the beat is `slow` BPM or twice it. */
export function octaveEvidence(slow: number, series: OctaveSeries, frameRate: number): OctaveEvidence {
  const { acf, harmony } = series;
  const onsets = onsetPresence(series.strength);
  const lowOnsets = onsetPresence(series.low);
  const period = periodFrames(slow, frameRate);
  const salience = (p: number) => Math.max(1e-3, combSalience(acf, p, HARMONICS) / acf.sums[0]!);
  // A bar of the slow level, in chroma frames; the harmony compared over half a bar either side.
  const bar = BEATS_PER_BAR * periodFrames(slow, harmony.frameRate);
  const change = harmonicChange(harmony.chroma, Math.max(1, Math.round(bar / 2)));
  // The harmony compared over half a beat of the slow level either side: chorale-like music
  // changes chord every beat, so this change repeats at the beat and not at half of it; a ballad
  // at twice the slow level changes chord every bar, two beats of the slow level.
  const beat = periodFrames(slow, harmony.frameRate);
  const beatChange = harmonicChange(harmony.chroma, Math.max(1, Math.round(beat / 2)));
  return {
    slow,
    features: [
      offbeatRatio(onsets, period),
      offbeatRatio(onsets, period / 2),
      offbeatRatio(lowOnsets, period),
      offbeatRatio(lowOnsets, period / 2),
      Math.log2(slow / PRIOR_CENTRE),
      Math.log(salience(period / 2) / salience(period)),
      offbeatRatio(onsets, period * 2),
      offbeatRatio(change, bar, Infinity),
      normalisedAutocorrelation(change, bar / 2) - normalisedAutocorrelation(change, bar),
      presenceComb(onsets, period / 2) - presenceComb(onsets, period),
      presenceComb(onsets, period) - presenceComb(onsets, period * 2),
      normalisedAutocorrelation(beatChange, beat / 2) - normalisedAutocorrelation(beatChange, beat),
      normalisedAutocorrelation(beatChange, beat) - normalisedAutocorrelation(beatChange, 2 * beat),
      // Strength, not presence: a passing note is one voice, a chord on the beat all of them (0192).
      offbeatRatio(series.strength, period),
      1,
    ],
  };
}

/**
 * The beat's tempo from the evidences of octaveEvidences(): of the first pair, the fast level when
 * its logistic score is positive; else, of the next pair (half the slow level and the slow level),
 * the one its score picks; with the product of the probabilities the scores gave the levels taken
 * (1 when only one level is in range).
 */
export function chooseOctave(
  bpm: number,
  evidences: readonly OctaveEvidence[],
  weights: readonly number[] = OCTAVE_WEIGHTS,
): { bpm: number; probability: number } {
  let beat = slowLevel(bpm);
  let probability = 1;
  for (const evidence of evidences) {
    const score = evidence.features.reduce((sum, value, i) => sum + value * weights[i]!, 0);
    probability *= 1 / (1 + Math.exp(-Math.abs(score)));
    beat = score >= 0 ? evidence.slow * 2 : evidence.slow;
    if (score >= 0) break;
  }
  return { bpm: beat, probability };
}

/** 1 where a normalised onset strength holds an onset (ONSET_PRESENCE), else 0. */
function onsetPresence(strength: Float32Array, threshold = ONSET_PRESENCE): Float32Array {
  return strength.map((value) => (value > threshold ? 1 : 0));
}

/** The normalised autocorrelation of the onset presence summed over multiples of a period. */
function presenceComb(onsets: Float32Array, period: number): number {
  return PRESENCE_COMB.reduce((sum, multiple) => sum + normalisedAutocorrelation(onsets, multiple * period), 0);
}

/**
 * Strength half a period after the strongest phase relative to the strongest phase, of a series
 * folded onto one period. Folded in stretches of `foldPeriods` periods (Infinity: the whole
 * series at once), each aligned on its own strongest phase, so that a tempo slightly off does not
 * smear the phases.
 */
function offbeatRatio(strength: Float32Array, period: number, foldPeriods = FOLD_PERIODS): number {
  const total = new Float64Array(PHASE_BINS);
  const stretch = Number.isFinite(foldPeriods) ? Math.round(foldPeriods * period) : Math.floor(strength.length / period) * period;
  const profile = new Float64Array(PHASE_BINS);
  const counts = new Float64Array(PHASE_BINS);
  for (let start = 0; stretch > 0 && start + stretch <= strength.length; start += stretch) {
    profile.fill(0);
    counts.fill(0);
    for (let t = start; t < start + stretch; t++) {
      const bin = Math.min(PHASE_BINS - 1, Math.floor((((t - start) / period) % 1) * PHASE_BINS));
      profile[bin]! += strength[t]!;
      counts[bin]! += 1;
    }
    for (let b = 0; b < PHASE_BINS; b++) profile[b] = counts[b]! > 0 ? profile[b]! / counts[b]! : 0;
    let peak = 0;
    for (let b = 1; b < PHASE_BINS; b++) if (profile[b]! > profile[peak]!) peak = b;
    for (let b = 0; b < PHASE_BINS; b++) total[b]! += profile[(b + peak) % PHASE_BINS]!;
  }
  const base = Math.min(...total);
  const beat = Math.max(total[0]!, total[1]!, total[PHASE_BINS - 1]!) - base;
  const half = PHASE_BINS / 2;
  const offbeat = Math.max(total[half - 1]!, total[half]!, total[half + 1]!) - base;
  return beat > 0 ? offbeat / beat : 0;
}
