import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { demoSong, renderSong } from '@catalog/testing';
import { analyzeFile, compareFingerprints, DUPLICATE_SIMILARITY, fingerprintSimilarity, type AnalysisResults } from '../../src/index.js';
import { audioDir, ffmpeg, toMp3 } from './support/audio.js';

const run = promisify(execFile);
const dir = audioDir('fingerprint');
afterAll(() => dir.remove());

type Fingerprint = AnalysisResults<'fingerprint'>['fingerprint'];
const prints: Record<'original' | 'mp3' | 'delayed' | 'other', Fingerprint> = {} as never;
let original: string;

beforeAll(async () => {
  original = dir.path('original.wav');
  const other = dir.path('other.wav');
  await Promise.all([
    renderSong({ bpm: 118, notes: demoSong(15, 9, 'minor'), programs: { 1: 33 } }, original, { effects: true }),
    renderSong({ bpm: 96, notes: demoSong(12, 2, 'major'), programs: { 0: 4, 1: 38 } }, other, { effects: true }),
  ]);
  const mp3 = dir.path('original.mp3');
  const delayed = dir.path('delayed.wav');
  await Promise.all([toMp3(original, mp3), ffmpeg(['-i', original, '-af', 'adelay=2000:all=1', delayed])]);
  const files = { original, mp3, delayed, other };
  for (const [name, path] of Object.entries(files))
    prints[name as keyof typeof prints] = (await analyzeFile(path, ['fingerprint'])).fingerprint;
}, 300_000); // renders audio: minutes on a machine busy with other suites

test('the same music re-encoded to MP3 is a duplicate; other music is not', () => {
  const duplicate = fingerprintSimilarity(prints.original.raw, prints.mp3.raw);
  const different = fingerprintSimilarity(prints.original.raw, prints.other.raw);
  expect(duplicate).toBeGreaterThanOrEqual(DUPLICATE_SIMILARITY);
  expect(different).toBeLessThan(DUPLICATE_SIMILARITY);
  expect(duplicate - different).toBeGreaterThan(0.3);
});

test('the same music behind 2 s of silence is a duplicate, found 2 s in', () => {
  const match = compareFingerprints(prints.delayed.raw, prints.original.raw);
  expect(match.similarity).toBeGreaterThanOrEqual(DUPLICATE_SIMILARITY);
  expect(Math.abs(match.offsetSeconds - 2)).toBeLessThanOrEqual(0.25);
});

test('a fingerprint is identical to itself, and the score is symmetric and within [0, 1]', () => {
  expect(fingerprintSimilarity(prints.original.raw, prints.original.raw)).toBe(1);
  expect(fingerprintSimilarity(prints.mp3.raw, prints.original.raw)).toBe(fingerprintSimilarity(prints.original.raw, prints.mp3.raw));
  expect(fingerprintSimilarity([], prints.original.raw)).toBe(0);
});

test('the compressed form is what fpcalc and AcoustID use (ffmpeg chromaprint muxer, base64), with about 8 sub-fingerprints a second', async () => {
  const { stdout } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', original, '-f', 'chromaprint', '-fp_format', 'base64', '-'], {
    timeout: 60_000,
  });
  expect(prints.original.fingerprint).toBe(stdout.trim());
  expect(prints.original.algorithm).toBe(1);
  expect(prints.original.raw.length / (prints.original.durationMs / 1000)).toBeGreaterThan(7);
  expect(prints.original.raw.every((value) => Number.isInteger(value) && value >= 0 && value < 2 ** 32)).toBe(true);
});

test('only the first maxSeconds are fingerprinted; such an excerpt is not a duplicate of the whole (it covers a third of it)', async () => {
  const { fingerprint } = await analyzeFile(original, ['fingerprint'], { options: { fingerprint: { maxSeconds: 10 } } });
  expect(fingerprint.durationMs).toBe(10_000);
  expect(fingerprint.raw.length).toBeLessThan(prints.original.raw.length / 2);
  const match = compareFingerprints(fingerprint.raw, prints.original.raw);
  expect(match.offsetSeconds).toBe(0);
  expect(match.similarity).toBeLessThan(DUPLICATE_SIMILARITY);
});
