import { chmod, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { AnalysisResultSchemas, ANALYSIS_TYPES } from '@catalog/contracts';
import { demoSong, renderSong } from '@catalog/testing';
import { Value } from '@sinclair/typebox/value';
import { analyzeFile, AnalysisError } from '../../src/index.js';
import { audioDir, ffmpeg, toMp3 } from './support/audio.js';

const dir = audioDir('analyze-file');
afterAll(() => dir.remove());

let song: string;
beforeAll(async () => {
  song = dir.path('song.wav');
  await renderSong({ bpm: 120, notes: demoSong(8, 9, 'minor'), programs: { 1: 33 } }, song);
}, 300_000); // renders audio: minutes on a machine busy with other suites

/** An FFMPEG_PATH that records each start, then runs ffmpeg. */
async function countingFfmpeg(): Promise<{ path: string; starts(): number }> {
  const log = dir.path('ffmpeg-starts.log');
  const path = dir.path('counting-ffmpeg.sh');
  await writeFile(log, '');
  await writeFile(path, `#!/bin/sh\necho start >> '${log}'\nexec ffmpeg "$@"\n`);
  await chmod(path, 0o755);
  return { path, starts: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}

test('all seven types from one decode (one ffmpeg process), each result valid against its contract schema', async () => {
  const ffmpegBinary = await countingFfmpeg();
  const results = await analyzeFile(song, ANALYSIS_TYPES, { ffmpegPath: ffmpegBinary.path });
  expect(ffmpegBinary.starts()).toBe(1);
  expect(Object.keys(results).sort()).toEqual([...ANALYSIS_TYPES].sort());
  for (const type of ANALYSIS_TYPES) expect([type, Value.Check(AnalysisResultSchemas[type], results[type])]).toEqual([type, true]);
  expect(results.tempo.bpm).toBeCloseTo(120, 0);
  expect(results.key.key).toBe('A minor');
  expect(results.tempo.firstDownbeatMs).toBeLessThanOrEqual(50);
});

test('only what is asked for: technical alone starts no ffmpeg at all', async () => {
  const ffmpegBinary = await countingFfmpeg();
  const results = await analyzeFile(song, ['technical'], { ffmpegPath: ffmpegBinary.path });
  expect(Object.keys(results)).toEqual(['technical']);
  expect(ffmpegBinary.starts()).toBe(0);
});

test('technical: container, codec, rate, channels, bit depth (none for lossy), bitrate and duration', async () => {
  const flac = dir.path('tone.flac');
  const mp3 = dir.path('song.mp3');
  const mono = dir.path('mono.wav');
  await Promise.all([
    ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:sample_rate=48000:duration=3',
      '-ac',
      '2',
      '-c:a',
      'flac',
      '-sample_fmt',
      's32',
      flac,
    ]),
    toMp3(song, mp3),
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=22050:duration=1.5', '-c:a', 'pcm_s16le', mono]),
  ]);
  const technical = async (path: string) => (await analyzeFile(path, ['technical'])).technical;
  const [wav, flacResult, mp3Result, monoResult] = await Promise.all([technical(song), technical(flac), technical(mp3), technical(mono)]);
  expect(wav).toMatchObject({ container: 'wav', codec: 'pcm_s16le', sampleRate: 44_100, channels: 2, bitDepth: 16, bitrate: 1_411_200 });
  expect(flacResult).toMatchObject({
    container: 'flac',
    codec: 'flac',
    sampleRate: 48_000,
    channels: 2,
    channelLayout: 'stereo',
    bitDepth: 24,
    durationMs: 3000,
  });
  expect(mp3Result).toMatchObject({ container: 'mp3', codec: 'mp3', sampleRate: 44_100, channels: 2, bitDepth: null });
  expect(mp3Result.bitrate).toBeGreaterThan(64_000);
  expect(Math.abs(mp3Result.durationMs! - wav.durationMs!)).toBeLessThanOrEqual(100);
  expect(monoResult).toMatchObject({ sampleRate: 22_050, channels: 1, bitDepth: 16, durationMs: 1500 });
});

test('a file that is not audio is unreadable_audio; the error does not repeat its path', async () => {
  const text = dir.path('notes.txt');
  await writeFile(text, 'not audio at all\n'.repeat(100));
  const error = await analyzeFile(text, ['loudness']).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AnalysisError);
  expect(error).toMatchObject({ code: 'unreadable_audio' });
  expect(JSON.stringify((error as AnalysisError).details ?? {})).not.toContain(text);
});

test('a file named like an ffmpeg protocol is read as a local file', async () => {
  const path = dir.path('concat:song.wav');
  await ffmpeg(['-i', song, '-t', '2', '-c:a', 'pcm_s16le', path]);
  const { technical, loudness } = await analyzeFile(path, ['technical', 'loudness']);
  expect(technical.durationMs).toBe(2000);
  expect(loudness.integratedLufs).not.toBeNull();
});

test('missing decoder, timeout, abort and bad options: each its own error code, no result', async () => {
  await expect(analyzeFile(song, ['loudness'], { ffmpegPath: dir.path('no-such-ffmpeg') })).rejects.toMatchObject({
    code: 'decoder_unavailable',
  });
  await expect(analyzeFile(song, ['technical'], { ffprobePath: dir.path('no-such-ffprobe') })).rejects.toMatchObject({
    code: 'decoder_unavailable',
  });
  const slow = dir.path('slow-ffmpeg.sh');
  await writeFile(slow, '#!/bin/sh\nsleep 30\n');
  await chmod(slow, 0o755);
  const started = Date.now();
  await expect(analyzeFile(song, ['loudness'], { ffmpegPath: slow, timeoutMs: 1_500 })).rejects.toMatchObject({ code: 'analysis_timeout' });
  const abort = new AbortController();
  const aborted = analyzeFile(song, ['loudness'], { ffmpegPath: slow, signal: abort.signal });
  setTimeout(() => abort.abort(), 300);
  await expect(aborted).rejects.toMatchObject({ code: 'analysis_aborted' });
  expect(Date.now() - started).toBeLessThan(20_000);
  await expect(analyzeFile(song, [])).rejects.toMatchObject({ code: 'invalid_analysis_options' });
  await expect(analyzeFile(song, ['bpm' as never])).rejects.toMatchObject({
    code: 'invalid_analysis_options',
    details: { unknown: ['bpm'] },
  });
  await expect(analyzeFile(song, ['loudness'], { options: { loudness: { targetLufs: 5 } } })).rejects.toMatchObject({
    code: 'invalid_analysis_options',
  });
});
