import { combSalience, type StreamingAutocorrelation } from './periodicity.js';

/** The tempo range reported (beats per minute). */
const MIN_BPM = 60;
const MAX_BPM = 200;
const GRID_BPM = 0.05;
const HARMONICS = 4;
/** Mild preference for moderate tempi: log-normal around 120 BPM, one octave wide. */
const PRIOR_CENTRE = 120;
const PRIOR_OCTAVES = 1;
/**
 * Share of its beats' strength that the off-beats of a level must carry for the level an octave up
 * (`upper` BPM) to be the beat: OFFBEAT_RATIO at the prior's centre, OFFBEAT_SLOPE more an octave
 * faster (learned on the accuracy benchmark's tuning split; decision 0121).
 */
const OFFBEAT_RATIO = 0.4;
const OFFBEAT_SLOPE = 0.1;
const threshold = (upper: number) => OFFBEAT_RATIO + OFFBEAT_SLOPE * Math.log2(upper / PRIOR_CENTRE);
const PHASE_BINS = 16;
const FOLD_PERIODS = 8;

export const periodFrames = (bpm: number, frameRate: number) => (60 * frameRate) / bpm;

/** Autocorrelation lags the comb reads at MIN_BPM. */
export const maxLagFor = (frameRate: number) => Math.ceil(HARMONICS * periodFrames(MIN_BPM, frameRate)) + 2;

/** The comb's best tempo on a 0.05 BPM grid, weighted by the prior, and its salience. */
export function strongestTempo(acf: StreamingAutocorrelation, frameRate: number): { bpm: number; salience: number } {
  let bestBpm = 0;
  let bestScore = -Infinity;
  let bestSalience = 0;
  for (let bpm = MIN_BPM; bpm <= MAX_BPM + 1e-9; bpm += GRID_BPM) {
    const salience = combSalience(acf, periodFrames(bpm, frameRate), HARMONICS);
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
    const salience = combSalience(acf, periodFrames(candidate, frameRate), HARMONICS);
    if (salience > bestSalience) {
      bestSalience = salience;
      best = candidate;
    }
  }
  return best;
}

/**
 * Moves the tempo by octaves to the metrical level of the beat: up while the off-beats of the
 * current level are strong enough beside its beats (they are beats too), then down while the
 * beats of the level below alternate strong and weak (the faster pulse subdivides its beats);
 * the faster the level above, the stronger its off-beats must be.
 */
export function chooseOctave(bpm: number, strength: Float32Array, frameRate: number): number {
  let chosen = bpm;
  while (chosen * 2 <= MAX_BPM && offbeatRatio(strength, periodFrames(chosen, frameRate)) >= threshold(chosen * 2)) chosen *= 2;
  while (chosen / 2 >= MIN_BPM && offbeatRatio(strength, periodFrames(chosen / 2, frameRate)) < threshold(chosen)) chosen /= 2;
  return chosen;
}

/**
 * Strength half a period after the strongest phase relative to the strongest phase, of the
 * onset strength folded onto one period. Folded in stretches of FOLD_PERIODS periods, each
 * aligned on its own strongest phase, so that a tempo slightly off does not smear the phases.
 */
function offbeatRatio(strength: Float32Array, period: number): number {
  const total = new Float64Array(PHASE_BINS);
  const stretch = Math.round(FOLD_PERIODS * period);
  const profile = new Float64Array(PHASE_BINS);
  const counts = new Float64Array(PHASE_BINS);
  for (let start = 0; start + stretch <= strength.length; start += stretch) {
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
