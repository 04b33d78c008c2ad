import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  KEY_SETTINGS,
  keyOfChroma,
  keyProfilesOf,
  keyWeightsFileOf,
  octaveWeightsFileOf,
  octaveWeightsOf,
  RERANK_FEATURES,
} from '@catalog/analysis/analyzers';
import type { KeyWeightsFile, OctaveWeightsFile } from '@catalog/analysis/analyzers';
import { learnModeWeights } from '../../bench/accuracy/learn-mode.js';
import { learnOctaveWeights, OCTAVE_LEARN, octaveLabel } from '../../bench/accuracy/learn-octave.js';
import { learnWeights, scaledRotation } from '../../bench/accuracy/learn-profiles.js';
import { learnReRank } from '../../bench/accuracy/learn-rerank.js';
import { KEY_WEIGHTS, OCTAVE_WEIGHTS_FILE, weightFileText } from '../../bench/accuracy/weight-files.js';
import { repositoryRoot } from './repository-root.js';

/** The learners of bench/accuracy/tune.ts on examples small enough to know the answer, and the files it writes. */
const MAJOR = [0, 2, 4, 5, 7, 9, 11];
const MINOR = [0, 2, 3, 5, 7, 8, 10];
/** A chroma of a scale on `tonic`, its tonic triad stressed. */
function chroma(tonic: number, scale: number[]): number[] {
  const values = Array<number>(12).fill(0.05);
  for (const step of scale) values[(tonic + step) % 12] = 0.5;
  for (const step of [0, scale[2]!, 7]) values[(tonic + step) % 12] = 1;
  return values;
}
const keyExamples = [0, 2, 5, 7, 9].flatMap((tonic) =>
  (['major', 'minor'] as const).map((mode) => {
    const c = chroma(tonic, mode === 'major' ? MAJOR : MINOR);
    return { chroma: { treble: c, bass: c, endBass: c, lead: c }, tonic, mode };
  }),
);

test('the 24-key regression learns profiles that read each tiny example as its key, the same every run', () => {
  const options = { epochs: 60, rate: 5, l2: 1e-3, prior: 0, registers: ['treble', 'bass', 'endBass'] as const };
  const weights = learnWeights(keyExamples, options);
  const score = (c: number[], tonic: number, mode: 'major' | 'minor') =>
    ['treble', 'bass', 'endBass'].reduce(
      (sum, _, r) => sum + scaledRotation(c, tonic).reduce((s, v, i) => s + v * weights[mode][12 * r + i]!, 0),
      0,
    );
  for (const example of keyExamples) {
    const candidates = Array.from({ length: 24 }, (_, k) => ({ tonic: k % 12, mode: k < 12 ? ('major' as const) : ('minor' as const) }));
    const best = candidates.reduce((a, b) =>
      score(example.chroma.treble, b.tonic, b.mode) > score(example.chroma.treble, a.tonic, a.mode) ? b : a,
    );
    expect(best).toEqual({ tonic: example.tonic, mode: example.mode });
  }
  expect(learnWeights(keyExamples, options)).toEqual(weights);
});

/**
 * Loops of a key and its relative minor with the same chords (I–vi–IV–V against i–VI–III–VII): the
 * same treble and bass, only the root the loop starts on (the start bass) differs.
 */
const relativeExamples = [0, 3, 7, 10].flatMap((tonic) => {
  const shared = chroma(tonic, MAJOR);
  const rootAt = (pc: number) => Array.from({ length: 12 }, (_, i) => (i === pc ? 1 : i === (pc + 7) % 12 ? 0.4 : 0.02));
  return [
    { chroma: { treble: shared, bass: shared, startBass: rootAt(tonic) }, tonic, mode: 'major' as const },
    { chroma: { treble: shared, bass: shared, startBass: rootAt((tonic + 9) % 12) }, tonic: (tonic + 9) % 12, mode: 'minor' as const },
  ];
});

test('the 24-key regression learns to tell a loop from its relative by the root it starts on', () => {
  const registers = ['treble', 'bass', 'startBass'] as const;
  const weights = learnWeights(relativeExamples, { epochs: 200, rate: 5, l2: 1e-3, prior: 0, registers });
  const score = (example: (typeof relativeExamples)[number], tonic: number, mode: 'major' | 'minor') =>
    registers.reduce(
      (sum, register, r) =>
        sum + scaledRotation(example.chroma[register], tonic).reduce((s, v, i) => s + v * weights[mode][12 * r + i]!, 0),
      0,
    );
  for (const example of relativeExamples) {
    const candidates = Array.from({ length: 24 }, (_, k) => ({ tonic: k % 12, mode: k < 12 ? ('major' as const) : ('minor' as const) }));
    const best = candidates.reduce((a, b) => (score(example, b.tonic, b.mode) > score(example, a.tonic, a.mode) ? b : a));
    expect(best).toEqual({ tonic: example.tonic, mode: example.mode });
  }
  const startBass = weights.major.slice(24, 36);
  expect(startBass.indexOf(Math.max(...startBass))).toBe(0);
});

test('the mode regression weighs the minor third for minor and the major third against it', () => {
  const weights = learnModeWeights(keyExamples, { epochs: 200, rate: 2, l2: 1e-3 });
  const lead = weights.slice(1, 13);
  expect(lead[3]!).toBeGreaterThan(0);
  expect(lead[4]!).toBeLessThan(0);
  for (const example of keyExamples) {
    const row = [1, ...scaledRotation(example.chroma.lead, example.tonic), ...scaledRotation(example.chroma.treble, example.tonic)];
    const minor = row.reduce((sum, v, i) => sum + v * weights[i]!, 0) > 0;
    expect(minor).toBe(example.mode === 'minor');
  }
});

test('the octave regression separates fast from slow on its one telling feature, weights rounded to hundredths', () => {
  const examples = [-1, -0.6, -0.3, 0.3, 0.6, 1].map((x) => ({ features: [x, 0.2, 1], fast: (x > 0 ? 1 : 0) as 0 | 1 }));
  const weights = learnOctaveWeights(examples, { epochs: 500, rate: 1, l2: 1e-3 });
  expect(weights[0]!).toBeGreaterThan(1);
  for (const w of weights) expect(Math.round(w * 100) / 100).toBe(w);
  for (const { features, fast } of examples) expect(features.reduce((sum, v, i) => sum + v * weights[i]!, 0) >= 0 ? 1 : 0).toBe(fast);
});

test('the octave regression by Newton reaches the penalised optimum itself: three fast pairs of four give the log odds of 3', () => {
  const examples = ([1, 1, 1, 0] as const).map((fast) => ({ features: [1], fast }));
  const newton = (l2: number) => learnOctaveWeights(examples, { ...OCTAVE_LEARN, l2, method: 'newton' });
  // Unpenalised, the optimum is log(3 / 1) = 1.0986; a penalty of 1e-6 moves it by under 0.0001.
  expect(newton(1e-6)).toEqual([1.1]);
  // The penalty pulls towards zero: the gradient (p − 0.75) + l2·w vanishes at w = 0.74 for l2 = 0.1.
  expect(newton(0.1)).toEqual([0.74]);
  expect(() => newton(0)).toThrow('positive L2 penalty');
});

test('an octave pair is labelled fast for the fast level, slow for the slow level or half it, and not at all otherwise', () => {
  expect(octaveLabel(160, 80)).toBe(1);
  expect(octaveLabel(82, 80)).toBe(0);
  expect(octaveLabel(40, 80)).toBe(0);
  expect(octaveLabel(120, 80)).toBeNull();
  expect(octaveLabel(320, 80)).toBeNull();
});

test('the committed weight files are what the writer makes of their own values: named, in its exact bytes', () => {
  const keyText = readFileSync(join(repositoryRoot, KEY_WEIGHTS), 'utf8');
  const key = JSON.parse(keyText) as KeyWeightsFile;
  expect(weightFileText(keyWeightsFileOf(keyProfilesOf(key), key.about, key.provenance))).toBe(keyText);
  const octaveText = readFileSync(join(repositoryRoot, OCTAVE_WEIGHTS_FILE), 'utf8');
  const octave = JSON.parse(octaveText) as OctaveWeightsFile;
  expect(weightFileText(octaveWeightsFileOf(octaveWeightsOf(octave), octave.about, octave.provenance))).toBe(octaveText);
  expect(Object.keys(octave.weights)).toContain('constant');
  expect(Object.keys(key.profiles.treble?.major ?? {})).toContain('fifth');
  expect(Object.keys(key.rerank?.weights ?? {})).toEqual([...RERANK_FEATURES]);
});

/**
 * Loops in C major and A minor whose whole-piece chroma is the same C major scale (the committed
 * profiles' first choice is the same for both); only the chords they start and end on differ.
 */
const triadChroma = (pitchClasses: number[]) => Float64Array.from({ length: 12 }, (_, i) => (pitchClasses.includes(i) ? 1 : 0.05));
const loopExamples = [0, 1, 2, 3].flatMap(() => {
  const shared = Float64Array.from(chroma(0, MAJOR));
  const of = (tonic: number, mode: 'major' | 'minor', triad: number[]) => ({
    chroma: {
      treble: shared,
      bass: shared,
      endBass: shared,
      lead: shared,
      startBass: triadChroma([tonic]),
      startTreble: triadChroma(triad),
      endTreble: triadChroma(triad),
    },
    tonic,
    mode,
  });
  return [of(0, 'major', [0, 4, 7]), of(9, 'minor', [9, 0, 4])];
});

test('the re-rank learns to tell a loop from its relative key by the chords it starts and ends on, the same every run', () => {
  const profiles = { ...KEY_SETTINGS.profiles, rerank: null };
  const options = { epochs: 300, rate: 2, l2: 1e-3, margin: 2 };
  const rerank = learnReRank(loopExamples, profiles, options);
  const keys = loopExamples.map((example) => keyOfChroma(example.chroma, { ...profiles, rerank }).key);
  expect(keys.slice(0, 2)).toEqual(['C major', 'A minor']);
  expect(rerank.weights.startTrebleTriad + rerank.weights.endTrebleTriad + rerank.weights.startBassTonic).toBeGreaterThan(0);
  expect(learnReRank(loopExamples, profiles, options)).toEqual(rerank);
});
