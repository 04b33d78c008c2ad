import { analyzeFile } from '../../src/index.js';
import { audioDir, sox, synthFloat, writeSegments, type Segment } from './support/audio.js';

const dir = audioDir('cue-points');
afterAll(() => dir.remove());

async function cuePointsOf(path: string) {
  return (await analyzeFile(path, ['cue_points'])).cue_points;
}

function expectOrdered(points: Awaited<ReturnType<typeof cuePointsOf>>): void {
  const order = [points.cueInMs, points.introEndMs, points.outroStartMs, points.nextTrackStartMs, points.cueOutMs];
  expect(order).toEqual([...order].sort((a, b) => a! - b!));
}

test('cue in and cue out within 50 ms of a tone with silence around it', async () => {
  const path = dir.path('tone.wav');
  await writeSegments(path, [
    { seconds: 2, dbfs: null },
    { seconds: 5, dbfs: -20 },
    { seconds: 3, dbfs: null },
  ]);
  const points = await cuePointsOf(path);
  expect(Math.abs(points.cueInMs! - 2000)).toBeLessThanOrEqual(50);
  expect(Math.abs(points.cueOutMs! - 7000)).toBeLessThanOrEqual(50);
  expectOrdered(points);
});

test('cue in and cue out within 50 ms of a tone over a noise floor 55 dB below it (hiss is not audio)', async () => {
  const tone = dir.path('tone-only.wav');
  const noise = dir.path('noise.wav');
  const path = dir.path('tone-in-noise.wav');
  await writeSegments(tone, [
    { seconds: 1.5, dbfs: null },
    { seconds: 4, dbfs: -20 },
    { seconds: 2.5, dbfs: null },
  ]);
  await synthFloat(noise, ['8', 'whitenoise', 'vol', String(10 ** (-75 / 20))]);
  await sox(['-m', tone, noise, path]);
  const points = await cuePointsOf(path);
  expect(Math.abs(points.cueInMs! - 1500)).toBeLessThanOrEqual(50);
  expect(Math.abs(points.cueOutMs! - 5500)).toBeLessThanOrEqual(50);
});

test('speech: pauses between words end nothing, and a quieter last word is before the segue and cue out', async () => {
  const word = (dbfs: number): Segment[] => [
    { seconds: 0.35, dbfs, hz: 220 },
    { seconds: 0.45, dbfs: null },
  ];
  const words = [
    ...Array.from({ length: 8 }, () => word(-18)).flat(),
    { seconds: 1.2, dbfs: null },
    ...word(-26),
    { seconds: 2, dbfs: null },
  ];
  const path = dir.path('speech.wav');
  await writeSegments(path, words);
  const lastWordStart = 8 * 0.8 + 1.2;
  const lastWordEnd = lastWordStart + 0.35;
  const points = await cuePointsOf(path);
  expect(points.nextTrackStartMs!).toBeGreaterThanOrEqual(lastWordStart * 1000);
  expect(Math.abs(points.cueOutMs! - lastWordEnd * 1000)).toBeLessThanOrEqual(50);
  expect(points.cueInMs).toBeLessThanOrEqual(50);
  expectOrdered(points);
});

test('a quiet intro, a body and a linear 6 s fade-out: intro end where the body starts, outro start early in the fade (still within 4 LU of the body), segue late in it', async () => {
  const intro = dir.path('intro.wav');
  const body = dir.path('body.wav');
  const outro = dir.path('outro.wav');
  const path = dir.path('song.wav');
  await synthFloat(intro, ['6', 'sine', '440', 'vol', String(10 ** (-32 / 20))]);
  await synthFloat(body, ['12', 'sine', '440', 'vol', String(10 ** (-18 / 20))]);
  await synthFloat(outro, ['6', 'sine', '440', 'vol', String(10 ** (-18 / 20)), 'fade', 't', '0', '6', '6']);
  await sox([intro, body, outro, path]);
  const points = await cuePointsOf(path);
  expect(points.cueInMs).toBeLessThanOrEqual(50);
  expect(points.introEndMs!).toBeGreaterThanOrEqual(5000);
  expect(points.introEndMs!).toBeLessThanOrEqual(6500);
  expect(points.outroStartMs!).toBeGreaterThanOrEqual(18000);
  expect(points.outroStartMs!).toBeLessThanOrEqual(21000);
  expect(points.nextTrackStartMs!).toBeGreaterThanOrEqual(21500);
  expect(points.nextTrackStartMs!).toBeLessThanOrEqual(23500);
  expect(points.cueOutMs!).toBeGreaterThanOrEqual(23500);
  expect(points.cueOutMs!).toBeLessThanOrEqual(24050);
  expectOrdered(points);
});

test('silence has no cue points', async () => {
  const path = dir.path('silence.wav');
  await writeSegments(path, [{ seconds: 4, dbfs: null }]);
  expect(await cuePointsOf(path)).toEqual({ cueInMs: null, introEndMs: null, outroStartMs: null, nextTrackStartMs: null, cueOutMs: null });
});
