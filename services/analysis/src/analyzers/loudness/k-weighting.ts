/**
 * The K-weighting of ITU-R BS.1770-4 (a high shelf, then a high pass) as two biquads for any
 * sample rate: the analogue prototypes' parameters (shelf 1681.97 Hz, +4.0 dB, Q 0.7072; high pass
 * 38.14 Hz, Q 0.5003), mapped with the bilinear transform, which reproduces the recommendation's
 * 48 kHz coefficients.
 */
export interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

/** Keeps the filters' memory out of denormal numbers (slow arithmetic) in digital silence. */
const ANTI_DENORMAL = 1e-20;

const SHELF = { f0: 1681.974450955533, gainDb: 3.999843853973347, q: 0.7071752369554196 };
const HIGH_PASS = { f0: 38.13547087602444, q: 0.5003270373238773 };

export function kWeightingShelf(sampleRate: number): Biquad {
  const k = Math.tan((Math.PI * SHELF.f0) / sampleRate);
  const vh = 10 ** (SHELF.gainDb / 20);
  const vb = vh ** 0.4996667741545416;
  const a0 = 1 + k / SHELF.q + k * k;
  return {
    b0: (vh + (vb * k) / SHELF.q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / SHELF.q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / SHELF.q + k * k) / a0,
  };
}

export function kWeightingHighPass(sampleRate: number): Biquad {
  const k = Math.tan((Math.PI * HIGH_PASS.f0) / sampleRate);
  const a0 = 1 + k / HIGH_PASS.q + k * k;
  return { b0: 1, b1: -2, b2: 1, a1: (2 * (k * k - 1)) / a0, a2: (1 - k / HIGH_PASS.q + k * k) / a0 };
}

/**
 * Both stages on one channel of interleaved samples, returning the sum of the squared output.
 * `state` holds the channel's filter memory (4 values per stage, direct form I) between calls.
 */
export function kWeightedEnergy(
  samples: Float32Array,
  channel: number,
  channels: number,
  start: number,
  frames: number,
  shelf: Biquad,
  highPass: Biquad,
  state: Float64Array,
): number {
  let x1 = state[0]!,
    x2 = state[1]!,
    y1 = state[2]!,
    y2 = state[3]!;
  let z1 = state[4]!,
    z2 = state[5]!;
  const { b0, b1, b2, a1, a2 } = shelf;
  const c1 = highPass.a1,
    c2 = highPass.a2;
  let energy = 0;
  const end = (start + frames) * channels;
  for (let i = start * channels + channel; i < end; i += channels) {
    const x = samples[i]! + ANTI_DENORMAL;
    const y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    // high pass (b = 1, -2, 1) in direct form II: z holds its two delayed internal values
    const w = y - c1 * z1 - c2 * z2;
    const out = w - 2 * z1 + z2;
    z2 = z1;
    z1 = w;
    energy += out * out;
  }
  state[0] = x1;
  state[1] = x2;
  state[2] = y1;
  state[3] = y2;
  state[4] = z1;
  state[5] = z2;
  return energy;
}
