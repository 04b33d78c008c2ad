import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TempoAnalyzer } from '@catalog/analysis/analyzers';
import { tuningCorpus } from '../../bench/accuracy/corpus.js';
import { ANALYSIS_RATE, decodedForAnalysis, renderPieces } from '../../bench/accuracy/render.js';

/**
 * Decision 0189: whether audio holds a beat reads how its harmony persists as well as how periodic
 * it is. Before, a periodicity of 0.05 decided alone: espeak-ng reading a news bulletin reached
 * 0.070 and got 78.3 BPM, and a tuning chorale-like piece on FluidR3's strings at 72 BPM, with
 * every degradation at once (a spoken intro, detuned, noise, fades, MP3), reached 0.041 and got none.
 */
let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'catalog-steady-test-'));
  process.env.BENCH_ACCURACY_CACHE = join(work, 'cache');
});
afterAll(() => {
  delete process.env.BENCH_ACCURACY_CACHE;
  rmSync(work, { recursive: true, force: true });
});

function tempoOf(samples: Float32Array) {
  const analyzer = new TempoAnalyzer(ANALYSIS_RATE);
  analyzer.write(samples, samples.length);
  return analyzer.result();
}

const BULLETIN =
  'This is the evening news. The council voted last night to keep the library open on Sundays, after a campaign by parents and ' +
  'teachers. In sport, the home side won three goals to one, their best result of the season. And now, the shipping forecast ' +
  'for the coming twenty four hours, issued by the met office.';

test('espeak-ng reading a news bulletin has no tempo, says it keeps no steady pulse, and has a confidence under 0.1', () => {
  const speech = join(work, 'bulletin.wav');
  execFileSync('espeak-ng', ['-v', 'en', '-s', '175', '-w', speech, `${BULLETIN} ${BULLETIN}`], { timeout: 60_000 });
  const tempo = tempoOf(decodedForAnalysis(speech));
  expect(tempo).toMatchObject({ bpm: null, noBpmReason: 'no_steady_pulse', firstBeatMs: null, beatsMs: [] });
  expect(tempo.confidence).toBeLessThan(0.1);
});

test('a chorale-like piece of held string chords, under every degradation, gets its tempo', async () => {
  // Written plainly, as 0189 met it: since decision 0192 the tuning piece moves in eighths.
  const found = tuningCorpus(['homophonic']).find((p) => p.id === 'tuning-fluidr3-10020')!;
  const { writing: _, ...plainly } = found.homophonic!;
  const piece = { ...found, homophonic: plainly };
  expect({ bpm: piece.truth.bpm, degradation: piece.degradation }).toEqual({ bpm: 72, degradation: 'all' });
  const file = (await renderPieces([piece], () => {})).get(piece.id)!;
  const { bpm, confidence } = tempoOf(decodedForAnalysis(file));
  expect(bpm).not.toBeNull();
  expect(Math.abs(bpm! - 72)).toBeLessThanOrEqual(0.04 * 72);
  expect(confidence).toBeGreaterThan(0);
}, 120_000);
