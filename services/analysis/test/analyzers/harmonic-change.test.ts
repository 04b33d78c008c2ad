import { ChromaSeries, harmonicChange, harmonyPersistence, normalisedAutocorrelation } from '../../src/analyzers/tempo/harmonic-change.js';

const RATE = 11_025;
const C_MAJOR = [261.63, 329.63, 392.0];
const F_MAJOR = [349.23, 440.0, 523.25];

/** Seconds of equal-level sines (none: silence) one after the other. */
function chords(parts: Array<{ seconds: number; hz: number[] }>): Float32Array {
  const total = parts.reduce((sum, part) => sum + Math.round(part.seconds * RATE), 0);
  const out = new Float32Array(total);
  let at = 0;
  for (const { seconds, hz } of parts) {
    const n = Math.round(seconds * RATE);
    for (let i = 0; i < n; i++) out[at + i] = hz.reduce((sum, f) => sum + 0.2 * Math.sin((2 * Math.PI * f * i) / RATE), 0);
    at += n;
  }
  return out;
}

const chromaOf = (samples: Float32Array) => {
  const series = new ChromaSeries(RATE, 10_000);
  // Fed in uneven chunks, as the decoder does.
  for (let at = 0; at < samples.length; at += 3_000) series.write(samples.subarray(at, at + 3_000), Math.min(3_000, samples.length - at));
  return { chroma: series.values(), frameRate: series.frameRate };
};
const strongest = (chroma: Float32Array, frame: number, count: number) =>
  [...chroma.subarray(frame * 12, frame * 12 + 12)]
    .map((value, pc) => ({ value, pc }))
    .sort((a, b) => b.value - a.value)
    .slice(0, count)
    .map(({ pc }) => pc)
    .sort((a, b) => a - b);

test('the chroma of a triad is strongest on its three pitch classes, C first', () => {
  const { chroma, frameRate } = chromaOf(
    chords([
      { seconds: 2, hz: C_MAJOR },
      { seconds: 2, hz: F_MAJOR },
    ]),
  );
  expect(chroma.length / 12).toBe(Math.floor((4 * RATE - 2048) / 1024) + 1);
  expect(strongest(chroma, Math.round(frameRate), 3)).toEqual([0, 4, 7]);
  expect(strongest(chroma, Math.round(3 * frameRate), 3)).toEqual([0, 5, 9]);
});

test('the harmonic change peaks where the chord changes, is near zero within a chord and zero beside silence', () => {
  const { chroma, frameRate } = chromaOf(
    chords([
      { seconds: 2, hz: C_MAJOR },
      { seconds: 2, hz: F_MAJOR },
      { seconds: 1.5, hz: [] },
    ]),
  );
  const half = 5;
  const change = harmonicChange(chroma, half);
  const peak = change.indexOf(Math.max(...change));
  // The frame from which on the windows hold F: its start is about at 2 s, less half a frame.
  expect(Math.abs(peak - (2 * frameRate - 1))).toBeLessThanOrEqual(1.5);
  expect(change[peak]).toBeGreaterThan(0.3);
  expect(change[Math.round(frameRate)]).toBeLessThan(0.02);
  expect(change[Math.round(3 * frameRate)]).toBeLessThan(0.02);
  expect(change[Math.round(4.6 * frameRate)]).toBe(0);
  expect([...change.subarray(0, half)].every((value) => value === 0)).toBe(true);
});

test('the normalised autocorrelation is high at the period of a series and negative at half of it', () => {
  const series = Float32Array.from({ length: 400 }, (_, t) => (t % 8 === 0 ? 1 : 0));
  expect(normalisedAutocorrelation(series, 8)).toBeGreaterThan(0.9);
  expect(normalisedAutocorrelation(series, 4)).toBeLessThan(0);
  // Between lags: interpolated (up to the last pair, which a fractional lag leaves out).
  expect(normalisedAutocorrelation(series, 7.5)).toBeCloseTo(
    (normalisedAutocorrelation(series, 7) + normalisedAutocorrelation(series, 8)) / 2,
    2,
  );
  expect(normalisedAutocorrelation(new Float32Array(50), 3)).toBe(0);
});

test('harmony persists over chords held a beat, not over noise (decision 0189; speech: test/dev/accuracy-tempo-steady)', () => {
  const lag = (frameRate: number) => Math.round(0.25 * frameRate);
  const cycle = [C_MAJOR, F_MAJOR, [392.0, 493.88, 587.33], [220.0, 261.63, 329.63]];
  const held = chromaOf(chords(Array.from({ length: 16 }, (_, i) => ({ seconds: 0.8, hz: cycle[i % cycle.length]! }))));
  expect(harmonyPersistence(held.chroma, lag(held.frameRate))).toBeGreaterThan(0.35);
  let seed = 3;
  const noise = Float32Array.from({ length: 12 * RATE }, () => ((seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647) * 0.6 - 0.3);
  const noisy = chromaOf(noise);
  expect(Math.abs(harmonyPersistence(noisy.chroma, lag(noisy.frameRate)))).toBeLessThan(0.1);
  expect(harmonyPersistence(new Float32Array(0), 3)).toBe(0);
});
