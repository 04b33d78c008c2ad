/** Fine bins per semitone of the pitch-class histograms (10 cents each). */
export const FINE = 10;
export const FINE_BINS = 12 * FINE;
/** Bins either side of a peak whose mean magnitude it must stand above (by the prominence factor). */
const PROMINENCE_BINS = 16;

/** Which spectral peaks count and how much. */
export interface PeakRange {
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
}

/**
 * Pitch-class histograms at 10-cent resolution of the spectral peaks of magnitude spectra, one of
 * the bass register, one above it, both of the first and of the last frames, and the lead (each
 * frame's strongest peak above the bass). A peak's frequency is interpolated (parabola through the
 * log magnitudes of its bin and its neighbours), so a tone between two bins, or off A440, lands
 * where it is; its weight is its log-compressed magnitude over the frame's total, so each sounding
 * frame counts alike in the whole piece's histograms whatever its level; in the first and last
 * frames' each counts by its amplitude (decision 0194).
 */
export class PitchHistogram {
  readonly bass = new Float64Array(FINE_BINS);
  readonly treble = new Float64Array(FINE_BINS);
  /**
   * The lead: one count a sounding frame for the pitch of its strongest peak above the bass register
   * (mostly the melody's or the top voice's fundamental, seldom a bass note's overtone).
   */
  readonly lead = new Float64Array(FINE_BINS);
  /** The bass and treble histograms of the first `startFrames` sounding frames (row f) and their energies. */
  private readonly firstBass: Float64Array;
  private readonly firstTreble: Float64Array;
  private readonly firstEnergy: Float64Array;
  /** The bass and treble histograms of the last `endFrames` sounding frames and their energies, rings (frame f at row f % endFrames). */
  private readonly recentBass: Float64Array;
  private readonly recentTreble: Float64Array;
  private readonly recentEnergy: Float64Array;
  private sounding = 0;
  private readonly frameBins: Int32Array;
  private readonly frameWeights: Float64Array;
  private readonly frameBass: Uint8Array;
  private readonly prefix: Float64Array;

  constructor(
    private readonly sampleRate: number,
    private readonly frameSize: number,
    private readonly range: PeakRange & { startFrames: number; endFrames: number },
  ) {
    this.firstBass = new Float64Array(range.startFrames * FINE_BINS);
    this.firstTreble = new Float64Array(range.startFrames * FINE_BINS);
    this.firstEnergy = new Float64Array(range.startFrames);
    this.recentBass = new Float64Array(range.endFrames * FINE_BINS);
    this.recentTreble = new Float64Array(range.endFrames * FINE_BINS);
    this.recentEnergy = new Float64Array(range.endFrames);
    const capacity = frameSize / 2;
    this.prefix = new Float64Array(capacity + 2);
    this.frameBins = new Int32Array(capacity);
    this.frameWeights = new Float64Array(capacity);
    this.frameBass = new Uint8Array(capacity);
  }

  /** Adds the peaks of one frame's magnitudes |X(k)|, k = 0 … size / 2. */
  add(magnitudes: Float32Array): void {
    const peaks = this.findPeaks(magnitudes);
    let total = 0;
    for (let p = 0; p < peaks; p++) total += this.frameWeights[p]!;
    if (total < this.range.silent) return;
    let energy = 0;
    for (let k = 0; k < magnitudes.length; k++) energy += magnitudes[k]! * magnitudes[k]!;
    const starting = this.sounding < this.range.startFrames;
    const first = this.sounding * FINE_BINS;
    if (starting) this.firstEnergy[this.sounding] = energy;
    const recent = this.sounding++ % this.range.endFrames;
    const row = recent * FINE_BINS;
    this.recentEnergy[recent] = energy;
    const recentBass = this.recentBass.fill(0, row, row + FINE_BINS);
    const recentTreble = this.recentTreble.fill(0, row, row + FINE_BINS);
    let lead = -1;
    for (let p = 0; p < peaks; p++) {
      const bin = this.frameBins[p]!;
      const weight = this.frameWeights[p]! / total;
      if (this.frameBass[p]) {
        this.bass[bin]! += weight;
        recentBass[row + bin]! += weight;
        if (starting) this.firstBass[first + bin]! += weight;
      } else {
        this.treble[bin]! += weight;
        recentTreble[row + bin]! += weight;
        if (starting) this.firstTreble[first + bin]! += weight;
        if (lead < 0 || this.frameWeights[p]! > this.frameWeights[lead]!) lead = p;
      }
    }
    if (lead >= 0) this.lead[this.frameBins[lead]!]! += 1;
  }

  /** The frame's peaks into frameBins, frameWeights and frameBass; returns how many. */
  private findPeaks(magnitudes: Float32Array): number {
    const { lowest, bassBelow, highest, compression, prominence } = this.range;
    const prefix = this.prefix;
    for (let k = 0; k < magnitudes.length; k++) prefix[k + 1] = prefix[k]! + magnitudes[k]!;
    const binHz = this.sampleRate / this.frameSize;
    const first = Math.max(1, Math.floor((440 * 2 ** ((lowest - 1 - 69) / 12)) / binHz));
    const last = Math.min(magnitudes.length - 2, Math.ceil((440 * 2 ** ((highest + 1 - 69) / 12)) / binHz));
    let peaks = 0;
    for (let k = first; k <= last; k++) {
      const m = magnitudes[k]!;
      if (!(m > magnitudes[k - 1]! && m >= magnitudes[k + 1]!) || m <= 0) continue;
      const from = Math.max(0, k - PROMINENCE_BINS);
      const to = Math.min(magnitudes.length, k + PROMINENCE_BINS + 1);
      if (m < (prominence * (prefix[to]! - prefix[from]!)) / (to - from)) continue;
      const a = Math.log(magnitudes[k - 1]! + 1e-12);
      const b = Math.log(m);
      const c = Math.log(magnitudes[k + 1]! + 1e-12);
      const denominator = a - 2 * b + c;
      const offset = denominator < 0 ? (0.5 * (a - c)) / denominator : 0;
      const midi = 69 + 12 * Math.log2(((k + offset) * binHz) / 440);
      if (midi < lowest - 0.5 || midi > highest + 0.5) continue;
      const weight = Math.log1p(compression * m);
      this.frameBins[peaks] = ((Math.round(midi * FINE) % FINE_BINS) + FINE_BINS) % FINE_BINS;
      this.frameWeights[peaks] = weight;
      this.frameBass[peaks] = midi < bassBelow ? 1 : 0;
      peaks++;
    }
    return peaks;
  }

  /** The bass histogram of the first `startFrames` sounding frames (where a loop or a phrase starts), by amplitude. */
  startBass(): Float64Array {
    return byAmplitude(this.firstBass, this.firstEnergy);
  }

  /** The treble histogram of the first `startFrames` sounding frames, by amplitude. */
  startTreble(): Float64Array {
    return byAmplitude(this.firstTreble, this.firstEnergy);
  }

  /** The bass histogram of the last `endFrames` sounding frames (where a piece comes to rest), by amplitude. */
  endBass(): Float64Array {
    return byAmplitude(this.recentBass, this.recentEnergy);
  }

  /** The treble histogram of the last `endFrames` sounding frames (the final chord), by amplitude. */
  endTreble(): Float64Array {
    return byAmplitude(this.recentTreble, this.recentEnergy);
  }
}

/**
 * A window's rows (row f: frame f's histogram) summed, each weighted by the frame's amplitude over
 * that of the window's loudest frame (decision 0194): a frame of the noise or the tail after the
 * music, 20 dB under it, counts a tenth of a frame of the music. Rows never written count nothing.
 */
function byAmplitude(rows: Float64Array, energies: Float64Array): Float64Array {
  const loudest = energies.reduce((max, energy) => Math.max(max, energy), 0);
  const out = new Float64Array(FINE_BINS);
  if (!(loudest > 0)) return out;
  for (let row = 0; row < energies.length; row++) {
    const amplitude = Math.sqrt(energies[row]! / loudest);
    for (let bin = 0, i = row * FINE_BINS; bin < FINE_BINS; bin++, i++) out[bin]! += rows[i]! * amplitude;
  }
  return out;
}

/**
 * The tuning of a fine histogram: how far (in fine bins, −FINE/2 … FINE/2) its pitches sit from the
 * A440 semitones, as the circular mean of the histogram over one semitone.
 */
export function tuningOffset(histogram: Float64Array): number {
  let re = 0,
    im = 0;
  for (let j = 0; j < histogram.length; j++) {
    const angle = (2 * Math.PI * j) / FINE;
    re += histogram[j]! * Math.cos(angle);
    im += histogram[j]! * Math.sin(angle);
  }
  return re === 0 && im === 0 ? 0 : (Math.atan2(im, re) / (2 * Math.PI)) * FINE;
}

/**
 * Folds a fine histogram into 12 pitch classes around semitones shifted by `offset` fine bins,
 * each fine bin weighted by cos² of its distance from the semitone (half a semitone away: 0).
 */
export function foldChroma(histogram: Float64Array, offset: number): Float64Array {
  const chroma = new Float64Array(12);
  for (let j = 0; j < histogram.length; j++) {
    const semitones = (j - offset) / FINE;
    const nearest = Math.round(semitones);
    chroma[((nearest % 12) + 12) % 12]! += histogram[j]! * Math.cos(Math.PI * (semitones - nearest)) ** 2;
  }
  return chroma;
}
