import { cadence, renderSong, type Mode } from '@catalog/testing';
import { analyzeFile, type AnalysisResults } from '../../src/index.js';
import { audioDir } from './support/audio.js';

const dir = audioDir('key');
afterAll(() => dir.remove());

const PITCH_CLASSES: Record<string, number> = {
  C: 0,
  'C#': 1,
  Db: 1,
  D: 2,
  Eb: 3,
  E: 4,
  F: 5,
  'F#': 6,
  G: 7,
  Ab: 8,
  'G#': 8,
  A: 9,
  Bb: 10,
  B: 11,
};

/** Expected key, its Camelot code: eight major and eight minor keys around the circle of fifths. */
const KEYS: Array<[string, string]> = [
  ['C major', '8B'],
  ['G major', '9B'],
  ['D major', '10B'],
  ['A major', '11B'],
  ['E major', '12B'],
  ['F major', '7B'],
  ['Bb major', '6B'],
  ['Eb major', '5B'],
  ['A minor', '8A'],
  ['E minor', '9A'],
  ['B minor', '10A'],
  ['F# minor', '11A'],
  ['D minor', '7A'],
  ['G minor', '6A'],
  ['C minor', '5A'],
  ['F minor', '4A'],
];
const results = new Map<string, AnalysisResults<'key'>['key']>();

beforeAll(async () => {
  for (let i = 0; i < KEYS.length; i += 2) {
    await Promise.all(
      KEYS.slice(i, i + 2).map(async ([key]) => {
        const [tonic, mode] = key.split(' ') as [string, Mode];
        const path = dir.path(`${tonic}-${mode}.wav`);
        await renderSong({ bpm: 120, notes: cadence(PITCH_CLASSES[tonic]!, mode, { repeats: 2 }) }, path);
        results.set(key, (await analyzeFile(path, ['key'])).key);
      }),
    );
  }
}, 300_000); // renders audio: minutes on a machine busy with other suites

test.each(KEYS)('a rendered I-IV-V-I (i-iv-V-i) cadence in %s reads that key, Camelot %s', (key, code) => {
  const [tonic, mode] = key.split(' ');
  expect(results.get(key)).toEqual({ key, tonic, mode, camelot: code, strength: expect.any(Number) });
  expect(results.get(key)!.strength).toBeGreaterThan(0.5);
});
