import { KeyAnalyzer } from '../../src/analyzers/index.js';

const RATE = 11_025;
/** C major in the treble (C4, E4, G4, C5), each tone with two overtones (E's and G's third are off the chord). */
const CHORD_HZ = [261.63, 329.63, 392.0, 523.25];
const C_MAJOR = [0, 4, 7];

function chord(seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i++)
    for (const hz of CHORD_HZ)
      for (const [harmonic, level] of [
        [1, 0.1],
        [2, 0.03],
        [3, 0.015],
      ] as const)
        out[i]! += level * Math.sin((2 * Math.PI * hz * harmonic * i) / RATE);
  return out;
}

/** White noise (a fixed sequence) whose RMS is `belowDb` under `reference`'s. */
function hiss(seconds: number, reference: Float32Array, belowDb: number): Float32Array {
  const rms = (samples: Float32Array) => Math.sqrt(samples.reduce((sum, v) => sum + v * v, 0) / samples.length);
  const out = new Float32Array(Math.round(seconds * RATE));
  let state = 12_345;
  for (let i = 0; i < out.length; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    out[i] = state / 2 ** 30 - 1;
  }
  const gain = (rms(reference) * 10 ** (-belowDb / 20)) / rms(out);
  return out.map((v) => v * gain);
}

const joined = (...parts: Float32Array[]) => {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((at, part) => (out.set(part, at), at + part.length), 0);
  return out;
};

function edgesOf(samples: Float32Array) {
  const analyzer = new KeyAnalyzer(RATE);
  analyzer.write(samples, samples.length);
  return analyzer.features();
}

const share = (chroma: Float64Array, pitchClasses: number[]) =>
  pitchClasses.reduce((sum, pc) => sum + chroma[pc]!, 0) / chroma.reduce((sum, v) => sum + v, 0);

/**
 * The chords a piece starts and ends on (the key's start and end chroma, decision 0164) are of the
 * music, not of the hiss before or after it (decision 0194): a file that goes on for a second of
 * noise 20 dB under the music after its last chord, or starts with one, still ends or starts on
 * that chord. Before, each of the edge's frames counted alike, the noise's as much as the chord's.
 */
const music = chord(6);
const plain = edgesOf(music);

test('a second of hiss after the last chord leaves the end chroma on that chord', () => {
  const hissing = edgesOf(joined(music, hiss(1.1, music, 20)));
  // 0.851 without the hiss; with it 0.838, and 0.733 when each frame counted alike.
  expect(share(plain.endTreble, C_MAJOR)).toBeGreaterThan(0.8);
  expect(share(hissing.endTreble, C_MAJOR)).toBeGreaterThan(share(plain.endTreble, C_MAJOR) - 0.04);
});

test('a second of hiss before the first chord leaves the start chroma on that chord', () => {
  const hissing = edgesOf(joined(hiss(1.1, music, 20), music));
  // 0.850 without the hiss; with it 0.838, and 0.734 when each frame counted alike.
  expect(share(plain.startTreble, C_MAJOR)).toBeGreaterThan(0.8);
  expect(share(hissing.startTreble, C_MAJOR)).toBeGreaterThan(share(plain.startTreble, C_MAJOR) - 0.04);
});
