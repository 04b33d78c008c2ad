import { demoSong, renderSong } from '@catalog/testing';
import { analyzeFile } from '../../src/index.js';
import { audioDir, ffmpeg, ffmpegEbur128, synthFloat, writeChannels, writeSegments, type Segment } from './support/audio.js';

const dir = audioDir('loudness');
afterAll(() => dir.remove());

/** Minutes of 48 kHz stereo signal per test: generous timeouts for a machine shared with other suites. */
const TIMEOUT_MS = 120_000;

const repeat = (times: number, segments: Segment[]) => Array.from({ length: times }, () => segments).flat();

async function loudnessOf(name: string, segments: Segment[]) {
  const path = dir.path(`${name}.wav`);
  await writeSegments(path, segments);
  return (await analyzeFile(path, ['loudness'])).loudness;
}

test(
  'a 1 kHz stereo sine at -23 dBFS reads -23.0 LUFS (EBU Tech 3341 case 1), momentary and short-term too',
  async () => {
    const loudness = await loudnessOf('case1', [{ seconds: 20, dbfs: -23 }]);
    expect(Math.abs(loudness.integratedLufs! + 23)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(loudness.maxMomentaryLufs! + 23)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(loudness.maxShortTermLufs! + 23)).toBeLessThanOrEqual(0.1);
    expect(loudness.loudnessRangeLu).toBeLessThanOrEqual(0.1);
    expect(loudness.samplePeakDbfs).toBeCloseTo(-23, 1);
    expect(loudness.targetLufs).toBe(-23);
    expect(Math.abs(loudness.gainDb!)).toBeLessThanOrEqual(0.1);
  },
  TIMEOUT_MS,
);

// EBU Tech 3341 (2016) cases that a signal generator can make; expected -23.0 ± 0.1 LUFS except case 2.
test.each<[string, Segment[], number]>([
  ['case 2', [{ seconds: 20, dbfs: -33 }], -33],
  [
    'case 3',
    [
      { seconds: 10, dbfs: -36 },
      { seconds: 60, dbfs: -23 },
      { seconds: 10, dbfs: -36 },
    ],
    -23,
  ],
  [
    'case 4',
    [
      { seconds: 10, dbfs: -72 },
      { seconds: 10, dbfs: -36 },
      { seconds: 60, dbfs: -23 },
      { seconds: 10, dbfs: -36 },
      { seconds: 10, dbfs: -72 },
    ],
    -23,
  ],
  [
    'case 5',
    [
      { seconds: 20, dbfs: -26 },
      { seconds: 20.1, dbfs: -20 },
      { seconds: 20, dbfs: -26 },
    ],
    -23,
  ],
])(
  'EBU Tech 3341 %s: integrated loudness within 0.1 LU',
  async (name, segments, expected) => {
    const loudness = await loudnessOf(name.replace(' ', ''), segments);
    expect(Math.abs(loudness.integratedLufs! - expected)).toBeLessThanOrEqual(0.1);
  },
  TIMEOUT_MS,
);

test(
  'EBU Tech 3341 case 6: five channels (L R C Ls Rs) with the surround weights read -23.0',
  async () => {
    const path = dir.path('case6.wav');
    await writeChannels(path, [-28, -28, -24, -30, -30], 20);
    const { loudness, technical } = await analyzeFile(path, ['loudness', 'technical']);
    expect(technical.channels).toBe(5);
    expect(Math.abs(loudness.integratedLufs! + 23)).toBeLessThanOrEqual(0.1);
  },
  TIMEOUT_MS,
);

test(
  'EBU Tech 3341 cases 9 and 12: short-term and momentary windows over alternating levels read -23.0',
  async () => {
    const shortTerm = await loudnessOf(
      'case9',
      repeat(20, [
        { seconds: 1.34, dbfs: -20 },
        { seconds: 1.66, dbfs: -30 },
      ]),
    );
    expect(Math.abs(shortTerm.maxShortTermLufs! + 23)).toBeLessThanOrEqual(0.1);
    const momentary = await loudnessOf(
      'case12',
      repeat(25, [
        { seconds: 0.18, dbfs: -20 },
        { seconds: 0.22, dbfs: -30 },
      ]),
    );
    expect(Math.abs(momentary.maxMomentaryLufs! + 23)).toBeLessThanOrEqual(0.1);
  },
  TIMEOUT_MS,
);

// EBU Tech 3342 (2016) cases 1-4: loudness range within ±1 LU.
test.each<[string, number[], number]>([
  ['1', [-20, -30], 10],
  ['2', [-20, -15], 5],
  ['3', [-40, -20], 20],
  ['4', [-50, -35, -20, -35, -50], 15],
])(
  'EBU Tech 3342 case %s: loudness range within 1 LU',
  async (name, levels, expected) => {
    const loudness = await loudnessOf(
      `lra${name}`,
      levels.map((dbfs) => ({ seconds: 20, dbfs })),
    );
    expect(Math.abs(loudness.loudnessRangeLu! - expected)).toBeLessThanOrEqual(1);
  },
  TIMEOUT_MS,
);

test(
  'true peak of rendered music within 0.3 dB of ffmpeg ebur128=peak=true, integrated within 0.1 LU',
  async () => {
    const path = dir.path('music.wav');
    await renderSong({ bpm: 124, notes: demoSong(8, 2, 'major'), programs: { 1: 33 } }, path, { gain: 1.2, effects: true });
    const [{ loudness }, reference] = await Promise.all([analyzeFile(path, ['loudness']), ffmpegEbur128(path)]);
    expect(Math.abs(loudness.truePeakDbtp! - reference.truePeak)).toBeLessThanOrEqual(0.3);
    expect(Math.abs(loudness.integratedLufs! - reference.integrated)).toBeLessThanOrEqual(0.1);
    expect(loudness.truePeakDbtp!).toBeGreaterThanOrEqual(loudness.samplePeakDbfs!);
  },
  TIMEOUT_MS,
);

test(
  'an inter-sample peak: a quarter-rate sine sampled 45° off its crests reads its true crest, 3 dB above its samples',
  async () => {
    const path = dir.path('intersample.wav');
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'aevalsrc=0.5*sin(2*PI*12000*t+PI/4)|0.5*sin(2*PI*12000*t+PI/4):s=48000:d=5',
      '-c:a',
      'pcm_f32le',
      path,
    ]);
    const { loudness } = await analyzeFile(path, ['loudness']);
    expect(loudness.samplePeakDbfs).toBeCloseTo(-9.03, 1);
    expect(Math.abs(loudness.truePeakDbtp! - -6.02)).toBeLessThanOrEqual(0.3);
  },
  TIMEOUT_MS,
);

test(
  'true peak of a loud clipped tone within 0.3 dB of ffmpeg ebur128=peak=true',
  async () => {
    const path = dir.path('clipped.wav');
    await synthFloat(path, ['4', 'square', '997', 'vol', '0.9', 'lowpass', '18000'], { rate: 44_100 });
    const [{ loudness }, reference] = await Promise.all([analyzeFile(path, ['loudness']), ffmpegEbur128(path)]);
    expect(Math.abs(loudness.truePeakDbtp! - reference.truePeak)).toBeLessThanOrEqual(0.3);
  },
  TIMEOUT_MS,
);

test(
  'the gain goes to the target: -23 by default, -16 for the streaming profile, or an explicit target',
  async () => {
    const path = dir.path('gain.wav');
    await writeSegments(path, [{ seconds: 5, dbfs: -30 }]);
    const broadcast = (await analyzeFile(path, ['loudness'])).loudness;
    const streaming = (await analyzeFile(path, ['loudness'], { options: { loudness: { profile: 'streaming' } } })).loudness;
    const explicit = (await analyzeFile(path, ['loudness'], { options: { loudness: { profile: 'streaming', targetLufs: -14 } } })).loudness;
    expect(broadcast.integratedLufs).toBeCloseTo(-30, 1);
    expect([broadcast.targetLufs, streaming.targetLufs, explicit.targetLufs]).toEqual([-23, -16, -14]);
    expect(broadcast.gainDb).toBeCloseTo(7, 1);
    expect(streaming.gainDb).toBeCloseTo(14, 1);
    expect(explicit.gainDb).toBeCloseTo(16, 1);
  },
  TIMEOUT_MS,
);

test(
  'digital silence has no loudness, peak or gain (null, never -Infinity)',
  async () => {
    const loudness = await loudnessOf('silence', [{ seconds: 3, dbfs: null }]);
    expect(loudness).toEqual({
      integratedLufs: null,
      loudnessRangeLu: null,
      maxMomentaryLufs: null,
      maxShortTermLufs: null,
      samplePeakDbfs: null,
      truePeakDbtp: null,
      targetLufs: -23,
      gainDb: null,
    });
  },
  TIMEOUT_MS,
);
