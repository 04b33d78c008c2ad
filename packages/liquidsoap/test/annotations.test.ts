import { amplifyFactor, playlistLine, type TrackFacts } from '../src/annotations.js';

const facts: TrackFacts = {
  entityId: '0b6f1f4e-0000-4000-8000-000000000001',
  versionId: '0b6f1f4e-0000-4000-8000-000000000002',
  title: 'Say "hi" \\ bye',
  artist: 'The Testers',
  durationMs: 10_000,
  markers: { cue_in: 1500, intro_end: 2000, outro_start: 8000, segue: 8500, cue_out: 9250 },
  integratedLufs: -20,
};

test('a line: cue points in seconds, the gain towards the target as a factor, the cross-fade from the segue, the facts quoted', () => {
  expect(playlistLine(facts, -14, '/media/a.wav')).toBe(
    'annotate:liq_cue_in="1.500",liq_cue_out="9.250",liq_cross_duration="0.750",catalog_intro_end="2.000",' +
      'catalog_outro_start="8.000",liq_amplify="1.995262",title="Say \\"hi\\" \\\\ bye",artist="The Testers",' +
      `catalog_entity_id="${facts.entityId}",catalog_version_id="${facts.versionId}":/media/a.wav`,
  );
});

test('without markers or loudness: no cue, unity gain; a line break in a title never splits the line', () => {
  const line = playlistLine({ ...facts, title: 'Two\nlines', artist: null, markers: {}, integratedLufs: null }, -14, '/media/b.wav');
  expect(line).toBe(
    `annotate:liq_amplify="1.000000",title="Two lines",catalog_entity_id="${facts.entityId}",catalog_version_id="${facts.versionId}":/media/b.wav`,
  );
});

test('the gain: 6 dB up doubles the amplitude, 6 dB down halves it', () => {
  expect(amplifyFactor(-20, -14)).toBeCloseTo(1.995, 3);
  expect(amplifyFactor(-8, -14)).toBeCloseTo(0.501, 3);
});
