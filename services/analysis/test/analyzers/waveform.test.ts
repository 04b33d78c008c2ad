import { WAVEFORM_LIMITS } from '@catalog/contracts';
import WaveformData from 'waveform-data';
import { analyzeFile } from '../../src/index.js';
import { WaveformAnalyzer } from '../../src/analyzers/waveform/waveform-analyzer.js';
import { audioDir, ffmpeg } from './support/audio.js';

const dir = audioDir('waveform');
afterAll(() => dir.remove());

/** 2 s at 44.1 kHz: a 100 Hz sine at half scale on the left, silence on the right. */
let leftOnly: string;
beforeAll(async () => {
  leftOnly = dir.path('left-only.wav');
  await ffmpeg(['-f', 'lavfi', '-i', 'aevalsrc=0.5*sin(2*PI*100*t)|0:s=44100:d=2', '-c:a', 'pcm_f32le', leftOnly]);
});

test('the BBC audiowaveform v2 layout, read as is by waveform-data: 100 points a second by default, channels averaged', async () => {
  const { waveform } = await analyzeFile(leftOnly, ['waveform']);
  expect(waveform).toMatchObject({ version: 2, channels: 1, sample_rate: 44_100, samples_per_pixel: 441, bits: 8, length: 200 });
  expect(waveform.data).toHaveLength(400);
  const parsed = WaveformData.create(waveform);
  expect([parsed.length, parsed.channels, parsed.sample_rate, parsed.scale, parsed.bits]).toEqual([200, 1, 44_100, 441, 8]);
  expect(parsed.duration).toBeCloseTo(2, 2);
  // Averaged with the silent right channel: a quarter of full scale.
  expect(parsed.channel(0).max_sample(100)).toBe(32);
  expect(parsed.channel(0).min_sample(100)).toBe(-32);
});

test('split channels, 16 bits and a resolution in points per second', async () => {
  const { waveform } = await analyzeFile(leftOnly, ['waveform'], {
    options: { waveform: { splitChannels: true, bits: 16, pixelsPerSecond: 20 } },
  });
  expect(waveform).toMatchObject({ channels: 2, bits: 16, samples_per_pixel: 2205, length: 40 });
  const parsed = WaveformData.create(waveform);
  // Half scale (the sine's crests fall between samples: within 2 of 16,384).
  expect(Math.abs(parsed.channel(0).max_sample(10) - 16_384)).toBeLessThanOrEqual(2);
  expect(Math.abs(parsed.channel(0).min_sample(10) + 16_384)).toBeLessThanOrEqual(2);
  expect([parsed.channel(1).min_sample(10), parsed.channel(1).max_sample(10)]).toEqual([0, 0]);
  // For each point, for each channel: min, max.
  expect(waveform.data.slice(40, 44)).toEqual([parsed.channel(0).min_sample(10), parsed.channel(0).max_sample(10), 0, 0]);
});

test('samples per pixel wins over points per second; a finer resolution than the bound is refused', async () => {
  const { waveform } = await analyzeFile(leftOnly, ['waveform'], {
    options: { waveform: { samplesPerPixel: 4410, pixelsPerSecond: 500 } },
  });
  expect([waveform.samples_per_pixel, waveform.length]).toEqual([4410, 20]);
  await expect(analyzeFile(leftOnly, ['waveform'], { options: { waveform: { samplesPerPixel: 4 } } })).rejects.toMatchObject({
    code: 'invalid_analysis_options',
  });
});

test(`never more than ${WAVEFORM_LIMITS.maxLength} points: a long file gets a coarser resolution`, async () => {
  const path = dir.path('long.wav');
  await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000:duration=240', '-c:a', 'pcm_s16le', path]);
  const { waveform } = await analyzeFile(path, ['waveform'], { options: { waveform: { samplesPerPixel: 16 } } });
  expect(waveform.samples_per_pixel).toBe(32);
  expect(waveform.length).toBe(60_000);
  expect(waveform.data).toHaveLength(120_000);
});

test('a file longer than its header said: points merge in pairs as it outgrows the bound', () => {
  const analyzer = new WaveformAnalyzer(8000, 1, { samplesPerPixel: 16, bits: 8, splitChannels: false }, null);
  const chunk = Float32Array.from({ length: 8000 }, (_, i) => (i % 16 < 8 ? 0.5 : -0.5));
  for (let second = 0; second < 250; second++) analyzer.write(chunk, chunk.length);
  const waveform = analyzer.result();
  expect(waveform.samples_per_pixel).toBe(32);
  expect(waveform.length).toBe(62_500);
  expect(new Set(waveform.data)).toEqual(new Set([-64, 64]));
});
