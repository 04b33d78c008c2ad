import { generatedSong, randomSongSpec, renderMedley, seededRandom, type ChordQuality, type SongSpec } from '@catalog/testing';
import { analyzeFile, type AnalysisResults } from '../../src/index.js';
import { audioDir, cutOut } from './support/audio.js';

const dir = audioDir('key-loops');
afterAll(() => dir.remove());

type Loop = Array<[number, ChordQuality]>;
const I_VI_IV_V: Loop = [
  [0, 'M'],
  [9, 'm'],
  [5, 'M'],
  [7, 'M'],
];
const I_V_VI_IV: Loop = [
  [0, 'M'],
  [7, 'M'],
  [9, 'm'],
  [5, 'M'],
];
const i_VI_III_VII: Loop = [
  [0, 'm'],
  [8, 'M'],
  [3, 'M'],
  [10, 'M'],
];
const i_iv_VII_III: Loop = [
  [0, 'm'],
  [5, 'm'],
  [10, 'M'],
  [3, 'M'],
];

/**
 * Loop-based pop whose pitch content alone cannot tell the key from its relative one: drums, bass on
 * the chord roots, chords, no melody, the same four chords over and over, stopping wherever the
 * loop is (not on the tonic chord). The key is what the loop starts on and comes back to.
 */
const LOOPS: Array<{ key: string; tonic: number; mode: 'major' | 'minor'; loop: Loop; name: string; seed: number; bpm?: number }> = [
  { key: 'Ab major', tonic: 8, mode: 'major', loop: I_VI_IV_V, name: 'I-vi-IV-V', seed: 72_001 },
  { key: 'E major', tonic: 4, mode: 'major', loop: I_V_VI_IV, name: 'I-V-vi-IV', seed: 72_002 },
  { key: 'G major', tonic: 7, mode: 'major', loop: I_VI_IV_V, name: 'I-vi-IV-V', seed: 72_003 },
  { key: 'F minor', tonic: 5, mode: 'minor', loop: i_VI_III_VII, name: 'i-VI-III-VII', seed: 72_004 },
  { key: 'C# minor', tonic: 1, mode: 'minor', loop: i_iv_VII_III, name: 'i-iv-VII-III', seed: 72_005 },
  { key: 'A minor', tonic: 9, mode: 'minor', loop: i_VI_III_VII, name: 'i-VI-III-VII', seed: 72_006 },
];

const specs: SongSpec[] = LOOPS.map(({ tonic, mode, loop, seed, bpm }) => ({
  ...randomSongSpec(seededRandom(seed), 20, { tonic, mode, minorForm: 'natural', bpm: bpm ?? 100 }),
  drums: 'rock',
  chords: { style: 'sustain', lowest: 55, inversion: 0, program: 0 },
  bass: { lowest: 33, program: 33 },
  melody: null,
  bars: 9,
  chordLoop: loop,
  endOnTonic: false,
}));
/**
 * A piece of the accuracy benchmark's tuning generator (loop-based pop, seed 5002 on FluidR3, spec
 * as the generator writes it): I–V–vi–IV in D major, chord stabs and bass over a ride, stopping on
 * the IV. Its whole-piece pitch content reads as the relative B minor; the chord it starts on and
 * the chords it ends on make it D major (the re-rank of decision 0164).
 */
const TUNING_LOOP: SongSpec = {
  tonic: 2,
  mode: 'major',
  minorForm: 'natural',
  bpm: 133,
  swing: false,
  drums: 'ride',
  bars: 19,
  progression: 3,
  chords: { style: 'stabs', lowest: 67, inversion: 0, program: 5 },
  bass: { lowest: 40, program: 34 },
  melody: null,
  seed: 232_222_463,
  chordLoop: I_V_VI_IV,
  endOnTonic: false,
};
specs.push(TUNING_LOOP);
const results: Array<AnalysisResults<'key'>['key']> = [];

beforeAll(async () => {
  const medley = dir.path('loops.wav');
  const cuts = await renderMedley(specs.map(generatedSong), medley);
  for (const [i, cut] of cuts.entries()) {
    const path = dir.path(`loop-${i}.wav`);
    await cutOut(medley, cut, path);
    results[i] = (await analyzeFile(path, ['key'])).key;
  }
}, 300_000); // renders audio: minutes on a machine busy with other suites

test.each(LOOPS.map((loop, i) => [loop.name, loop.key, i] as const))(
  'a rendered %s loop in %s reads that key, not its relative or a fifth away',
  (_name, key, i) => {
    expect(results[i]!.key).toBe(key);
  },
);

test('a tuning-generator I-V-vi-IV loop in D major that its pitch content alone reads as B minor reads D major', () => {
  expect(results[LOOPS.length]!.key).toBe('D major');
});
