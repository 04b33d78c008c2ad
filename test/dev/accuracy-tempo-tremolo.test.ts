import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TempoAnalyzer } from '@catalog/analysis/analyzers';
import { tuningCorpus } from '../../bench/accuracy/corpus.js';
import { ANALYSIS_RATE, decodedForAnalysis, renderPieces } from '../../bench/accuracy/render.js';

/**
 * Decision 0188: a tuning chorale-like piece on CSound's organ at 56 BPM, whose tremolo swells the
 * onset strength 3.08 times a second. Before 0188 its comb locked there (184.6 BPM); the tonal
 * flux, which only a change of note raises, carries its beat.
 */
let cache: string;
beforeAll(() => {
  cache = mkdtempSync(join(tmpdir(), 'catalog-tremolo-test-'));
  process.env.BENCH_ACCURACY_CACHE = cache;
});
afterAll(() => {
  delete process.env.BENCH_ACCURACY_CACHE;
  rmSync(cache, { recursive: true, force: true });
});

test("an organ's tremolo does not set the tempo of a slow chorale-like piece", async () => {
  const piece = { ...tuningCorpus(['homophonic']).find((p) => p.id === 'tuning-csound-12024')!, degradation: 'clean' as const };
  expect(piece.truth.bpm).toBe(56);
  const file = (await renderPieces([piece], () => {})).get(piece.id)!;
  const samples = decodedForAnalysis(file);
  const analyzer = new TempoAnalyzer(ANALYSIS_RATE);
  analyzer.write(samples, samples.length);
  const { bpm } = analyzer.result();
  expect(bpm).not.toBeNull();
  expect(Math.abs(bpm! - 56)).toBeLessThanOrEqual(0.04 * 56);
}, 120_000);
