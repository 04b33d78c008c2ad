/** Frames of the moving mean removed from the onset strength before the autocorrelation. */
const MEAN_FRAMES = 43;
/** Frames of the envelope the stream is levelled by (about 3 s at 86 frames a second). */
const LEVEL_FRAMES = 258;
/** The envelope's floor, a share of its peak so far: a passage under a twentieth of the loudest is levelled up no further (nor is silence, nor a steady tone's rounding noise). */
const LEVEL_FLOOR = 0.05;

/**
 * Autocorrelation of the onset strength for lags 0…maxLag, accumulated frame by frame over the
 * whole file: the strength over its envelope of the last few seconds (decision 0186: a loud
 * passage, such as a voice over the intro, weighs by its length, not its loudness), less its
 * moving mean. State: the sums, the last maxLag + 1 values, the envelope and its peak.
 */
export class StreamingAutocorrelation {
  readonly sums: Float64Array;
  private readonly recent: Float64Array;
  private readonly window = new Float64Array(MEAN_FRAMES);
  private windowSum = 0;
  private count = 0;
  private envelope = 0;
  private peak = 0;

  constructor(readonly maxLag: number) {
    this.sums = new Float64Array(maxLag + 1);
    this.recent = new Float64Array(maxLag + 1);
  }

  add(raw: number): void {
    // Level: the stream over its recent envelope, so that a loud passage (a voice over the intro)
    // weighs by its length, not its loudness.
    this.envelope += (raw - this.envelope) * (this.count < LEVEL_FRAMES ? 1 / (this.count + 1) : 1 / LEVEL_FRAMES);
    this.peak = Math.max(this.peak, this.envelope);
    const value = raw / Math.max(this.envelope, LEVEL_FLOOR * this.peak, 1e-12);
    const slot = this.count % MEAN_FRAMES;
    this.windowSum += value - this.window[slot]!;
    this.window[slot] = value;
    const filled = Math.min(this.count + 1, MEAN_FRAMES);
    const centred = value - this.windowSum / filled;
    const size = this.maxLag + 1;
    const position = this.count % size;
    this.recent[position] = centred;
    const lags = Math.min(this.maxLag, this.count);
    const sums = this.sums;
    const recent = this.recent;
    for (let lag = 0; lag <= lags; lag++) {
      const index = position - lag;
      sums[lag]! += centred * recent[index < 0 ? index + size : index]!;
    }
    this.count++;
  }

  /** Linear interpolation between integer lags; 0 beyond maxLag. */
  at(lag: number): number {
    if (lag < 0 || lag >= this.maxLag) return 0;
    const i = Math.floor(lag);
    const f = lag - i;
    return this.sums[i]! * (1 - f) + this.sums[i + 1]! * f;
  }
}

/** Sum of the autocorrelation at the first `harmonics` multiples of a beat period (frames): a comb. */
export function combSalience(acf: StreamingAutocorrelation, period: number, harmonics: number): number {
  let sum = 0;
  for (let k = 1; k <= harmonics; k++) sum += acf.at(k * period);
  return sum;
}
