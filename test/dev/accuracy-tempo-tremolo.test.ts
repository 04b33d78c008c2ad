import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TempoAnalyzer } from '@catalog/analysis/analyzers';
import { renderMedley, SOUND_FONTS, type MidiNote } from '@catalog/testing';
import { ANALYSIS_RATE, decodedForAnalysis } from '../../bench/accuracy/render.js';

/**
 * Decision 0188: a drawbar organ (CSound's font, program 16) holds each chord a bar while its top
 * voice repeats every beat, at 56 BPM. The organ's tremolo swells the onset strength about three
 * times a second; before 0188 its comb locked there (178.2 BPM). The tonal flux, which only a change
 * of note raises, carries the beat. (0188 was found on tuning pieces whose voices stuck on one
 * chord, a generator fault mended by decision 0190; this is that music, written on purpose.)
 */
let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'catalog-tremolo-test-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("an organ's tremolo does not set the tempo of slow held chords", async () => {
  const notes: MidiNote[] = [];
  for (let beat = 0; beat < 28; beat++) {
    const chord = Math.floor(beat / 8) % 2 === 1 ? [41, 57, 60, 65] : [48, 55, 60, 67];
    if (beat % 4 === 0) for (const pitch of chord.slice(0, 3)) notes.push({ start: beat, length: 3.96, pitch, velocity: 72, channel: 0 });
    notes.push({ start: beat, length: 0.96, pitch: chord[3]!, velocity: 72, channel: 0 });
  }
  const file = join(work, 'organ.wav');
  await renderMedley([{ bpm: 56, notes, programs: { 0: 16 } }], file, { soundfont: SOUND_FONTS.csound, sampleRate: 44_100 });
  const samples = decodedForAnalysis(file);
  const analyzer = new TempoAnalyzer(ANALYSIS_RATE);
  analyzer.write(samples, samples.length);
  const { bpm } = analyzer.result();
  expect(bpm).not.toBeNull();
  expect(Math.abs(bpm! - 56)).toBeLessThanOrEqual(0.04 * 56);
}, 120_000);
