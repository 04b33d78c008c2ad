/** Taps of each polyphase branch (48 in all at 4x, as BS.1770-4 annex 2); interpolate() is unrolled for 12. */
const TAPS = 12;
/** Frames per block of the skip test (at least TAPS - 1: a block and the one before cover a filter's reach). */
const BLOCK = 16;

/** Oversampling of BS.1770-4 annex 2: 4x below 96 kHz, 2x below 192 kHz, none above. */
function oversamplingFactor(sampleRate: number): number {
  return sampleRate < 96_000 ? 4 : sampleRate < 192_000 ? 2 : 1;
}

/**
 * Polyphase branches of a Kaiser-windowed sinc interpolator cut off at the input's Nyquist
 * frequency; each branch normalised to unit gain at DC.
 */
function interpolationPhases(factor: number): Float64Array[] {
  const length = factor * TAPS;
  const centre = (length - 1) / 2;
  const beta = 6;
  const i0 = (x: number) => {
    let sum = 1,
      term = 1;
    for (let k = 1; k < 30; k++) {
      term *= (x / (2 * k)) ** 2;
      sum += term;
    }
    return sum;
  };
  const taps = Array.from({ length }, (_, n) => {
    const t = (n - centre) / factor;
    const sinc = t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t);
    const r = (2 * (n - centre)) / (length - 1);
    return sinc * (i0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / i0(beta));
  });
  return Array.from({ length: factor }, (_, phase) => {
    const branch = Float64Array.from({ length: TAPS }, (_, k) => taps[k * factor + phase]!);
    const gain = branch.reduce((a, b) => a + b, 0);
    return branch.map((v) => v / gain);
  });
}

/**
 * Sample peak and true peak (BS.1770-4 annex 2) of interleaved frames fed chunk by chunk. A block
 * whose largest sample, times the largest gain any branch can give (its sum of absolute taps),
 * cannot beat the true peak found so far is not interpolated: the result is the same, and music
 * after its first loud bars costs little more than the sample peak.
 */
export class PeakMeter {
  private readonly phases: Float64Array[];
  private readonly bound: number;
  private readonly history: Float32Array[];
  private scratch = new Float32Array(0);
  private samplePeak = 0;
  private truePeak = 0;

  constructor(
    sampleRate: number,
    private readonly channels: number,
  ) {
    this.phases = oversamplingFactor(sampleRate) > 1 ? interpolationPhases(oversamplingFactor(sampleRate)) : [];
    this.bound = Math.max(1, ...this.phases.map((p) => p.reduce((a, b) => a + Math.abs(b), 0)));
    this.history = Array.from({ length: channels }, () => new Float32Array(TAPS - 1));
  }

  write(samples: Float32Array, frames: number): void {
    if (this.scratch.length < frames + TAPS - 1) this.scratch = new Float32Array(frames + TAPS - 1);
    const x = this.scratch;
    for (let c = 0; c < this.channels; c++) {
      const history = this.history[c]!;
      x.set(history);
      for (let i = 0, j = c; i < frames; i++, j += this.channels) x[TAPS - 1 + i] = samples[j]!;
      this.scan(x, frames);
      history.set(x.subarray(frames, frames + TAPS - 1));
    }
  }

  /**
   * `x` holds TAPS - 1 samples of history, then `frames` new ones. Outputs n of block [start,
   * end) read x[start … end + TAPS - 2]: the block's own samples and the TAPS - 1 before them.
   */
  private scan(x: Float32Array, frames: number): void {
    let previousMax = maxAbs(x, 0, TAPS - 1);
    for (let start = 0; start < frames; start += BLOCK) {
      const end = Math.min(frames, start + BLOCK);
      const blockMax = maxAbs(x, start + TAPS - 1, end + TAPS - 1);
      if (blockMax > this.samplePeak) this.samplePeak = blockMax;
      if (this.phases.length > 0 && Math.max(blockMax, previousMax) * this.bound > this.truePeak) this.interpolate(x, start, end);
      previousMax = blockMax;
    }
  }

  /** Output n of a branch reads x[n … n + TAPS - 1] (12 taps, unrolled). */
  private interpolate(x: Float32Array, start: number, end: number): void {
    let peak = this.truePeak;
    for (const h of this.phases) {
      const h0 = h[0]!,
        h1 = h[1]!,
        h2 = h[2]!,
        h3 = h[3]!,
        h4 = h[4]!,
        h5 = h[5]!;
      const h6 = h[6]!,
        h7 = h[7]!,
        h8 = h[8]!,
        h9 = h[9]!,
        h10 = h[10]!,
        h11 = h[11]!;
      for (let n = start; n < end; n++) {
        const y =
          h11 * x[n]! +
          h10 * x[n + 1]! +
          h9 * x[n + 2]! +
          h8 * x[n + 3]! +
          h7 * x[n + 4]! +
          h6 * x[n + 5]! +
          h5 * x[n + 6]! +
          h4 * x[n + 7]! +
          h3 * x[n + 8]! +
          h2 * x[n + 9]! +
          h1 * x[n + 10]! +
          h0 * x[n + 11]!;
        const v = y < 0 ? -y : y;
        if (v > peak) peak = v;
      }
    }
    this.truePeak = peak;
  }

  /** Linear sample peak; the true peak is never below it (as libebur128 reports). */
  result(): { samplePeak: number; truePeak: number } {
    return { samplePeak: this.samplePeak, truePeak: Math.max(this.truePeak, this.samplePeak) };
  }
}

function maxAbs(x: Float32Array, start: number, end: number): number {
  let max = 0;
  for (let i = start; i < end; i++) {
    const v = Math.abs(x[i]!);
    if (v > max) max = v;
  }
  return max;
}
