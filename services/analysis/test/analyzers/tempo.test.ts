import { drumPattern, renderSong } from '@catalog/testing';
import { analyzeFile, type AnalysisResults } from '../../src/index.js';
import { audioDir, writeSegments } from './support/audio.js';

const dir = audioDir('tempo');
afterAll(() => dir.remove());

/** Tempi of the rendered drum patterns (a rock beat with eighth-note hi-hats). */
const TEMPI = [70, 84, 98, 112, 128, 140, 155, 168, 180];
/** The pattern starts one beat in: its first kick is the first downbeat. */
const LEAD_IN_BEATS = 1;
const results = new Map<number, AnalysisResults<'tempo'>['tempo']>();

beforeAll(async () => {
  // Two at a time: each render and analysis is one process on one core.
  for (let i = 0; i < TEMPI.length; i += 2) {
    await Promise.all(
      TEMPI.slice(i, i + 2).map(async (bpm) => {
        const path = dir.path(`drums-${bpm}.wav`);
        const bars = Math.ceil((12 * bpm) / 240);
        await renderSong({ bpm, notes: drumPattern(bars, LEAD_IN_BEATS) }, path);
        results.set(bpm, (await analyzeFile(path, ['tempo'])).tempo);
      }),
    );
  }
}, 300_000); // renders audio: minutes on a machine busy with other suites

test.each(TEMPI)('drums at %d BPM: tempo within 1 BPM (no octave error), beats a period apart', (bpm) => {
  const tempo = results.get(bpm)!;
  expect(Math.abs(tempo.bpm! - bpm)).toBeLessThanOrEqual(1);
  expect(tempo.confidence).toBeGreaterThan(0.3);
  const intervals = tempo.beatsMs.slice(1).map((t, i) => t - tempo.beatsMs[i]!);
  const period = 60_000 / bpm;
  expect(intervals.every((ms) => Math.abs(ms - period) <= 25)).toBe(true);
});

test.each(TEMPI)('drums at %d BPM: the first downbeat is the first kick (within 50 ms)', (bpm) => {
  const tempo = results.get(bpm)!;
  const firstKickMs = (LEAD_IN_BEATS * 60_000) / bpm;
  expect(Math.abs(tempo.firstDownbeatMs! - firstKickMs)).toBeLessThanOrEqual(50);
  expect(Math.abs(tempo.firstBeatMs! - firstKickMs)).toBeLessThanOrEqual(50);
});

test('a steady tone and silence have no tempo, and say why', async () => {
  const tone = dir.path('tone.wav');
  const silence = dir.path('silence.wav');
  await Promise.all([writeSegments(tone, [{ seconds: 8, dbfs: -20 }]), writeSegments(silence, [{ seconds: 4, dbfs: null }])]);
  for (const [path, noBpmReason] of [
    [tone, 'no_steady_pulse'],
    [silence, 'silence'],
  ] as const) {
    const { tempo } = await analyzeFile(path, ['tempo']);
    expect(tempo).toMatchObject({ bpm: null, noBpmReason, firstBeatMs: null, firstDownbeatMs: null, beatsMs: [] });
  }
});
