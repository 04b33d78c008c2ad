import { cueMarkers } from '../src/catalog.js';

test("the version's cue markers win; the cue_points result fills the ones it lacks; other markers are not cue points", () => {
  const markers = [
    { type: 'cue_in', positionMs: 1200 },
    { type: 'hook', positionMs: 5000 },
  ];
  const analysed = { cueInMs: 1000, introEndMs: 3000, outroStartMs: null, nextTrackStartMs: 9000, cueOutMs: 9500 };
  expect(cueMarkers(markers, analysed)).toEqual({ cue_in: 1200, intro_end: 3000, segue: 9000, cue_out: 9500 });
  expect(cueMarkers([], null)).toEqual({});
});
