import type { Marker, MoleculeAnchor } from '@catalog/contracts';
import { cuesOf, placeElements, type TimelineInput, type TimelineVersion } from '../src/molecules/domain/timeline.js';

/** The timeline arithmetic of molecules (decision 0137), without a database. */
const audio = (durationMs: number | null, markers: Marker[] = []): TimelineVersion => ({ durationMs, markers });
const cue = (type: Marker['type'], positionMs: number): Marker => ({ type, positionMs });
const element = (version: TimelineVersion | null, anchor: MoleculeAnchor = 'previous_cue_out', offsetMs = 0): TimelineInput => ({
  anchor,
  offsetMs,
  version,
});
const spans = (inputs: TimelineInput[]) => placeElements(inputs).elements.map((e) => [e.startMs, e.endMs]);

describe('cue points of an element', () => {
  test('from the markers where they exist, else the whole file; the next-track start is segue, else cue_out', () => {
    expect(cuesOf(audio(180_000, [cue('cue_in', 500), cue('segue', 175_000), cue('cue_out', 178_000)]))).toEqual({
      cueInMs: 500,
      cueOutMs: 178_000,
      nextTrackStartMs: 175_000,
    });
    expect(cuesOf(audio(180_000))).toEqual({ cueInMs: 0, cueOutMs: 180_000, nextTrackStartMs: 180_000 });
    expect(cuesOf(audio(180_000, [cue('cue_in', 2_000)]))).toEqual({ cueInMs: 2_000, cueOutMs: 180_000, nextTrackStartMs: 180_000 });
  });

  test('a cue_out marker gives the end when the duration is unknown; without either the end is unknown', () => {
    expect(cuesOf(audio(null, [cue('cue_out', 30_000)]))).toEqual({ cueInMs: 0, cueOutMs: 30_000, nextTrackStartMs: 30_000 });
    expect(cuesOf(audio(null, [cue('cue_in', 1_000)]))).toBeUndefined();
  });

  test('markers set before the duration was known are kept within the file', () => {
    expect(cuesOf(audio(10_000, [cue('cue_in', 12_000), cue('segue', 20_000), cue('cue_out', 25_000)]))).toEqual({
      cueInMs: 10_000,
      cueOutMs: 10_000,
      nextTrackStartMs: 10_000,
    });
  });
});

describe('placing the elements', () => {
  const song = audio(180_000, [cue('cue_in', 1_000), cue('outro_start', 170_000), cue('segue', 176_000), cue('cue_out', 179_000)]);
  const jingle = audio(5_000);

  test('previous_cue_out plays one after the other; each element lasts cue_out - cue_in', () => {
    const timeline = placeElements([element(jingle), element(song), element(jingle)]);
    expect(timeline.elements.map((e) => [e.startMs, e.endMs])).toEqual([
      [0, 5_000],
      [5_000, 183_000],
      [183_000, 188_000],
    ]);
    expect(timeline).toMatchObject({ durationMs: 188_000, complete: true });
  });

  test('previous_next_track_start starts at the previous element’s segue, measured from its cue_in', () => {
    // The song plays 0..178000 (cue_in 1000 at 0); its segue (176000) is 175000 after its start.
    expect(spans([element(song, 'start'), element(jingle, 'previous_next_track_start')])).toEqual([
      [0, 178_000],
      [175_000, 180_000],
    ]);
    // Without a segue marker it is the previous element's end.
    expect(spans([element(jingle), element(jingle, 'previous_next_track_start')])).toEqual([
      [0, 5_000],
      [5_000, 10_000],
    ]);
  });

  test('offsets shift from the anchor; negative ones overlap the previous element; nothing starts before 0', () => {
    expect(spans([element(song), element(jingle, 'previous_cue_out', -3_000), element(jingle, 'previous_cue_out', 2_000)])).toEqual([
      [0, 178_000],
      [175_000, 180_000],
      [182_000, 187_000],
    ]);
    // A station ID over the intro: anchored on the molecule's start, while the song plays.
    expect(spans([element(song, 'start'), element(jingle, 'start', 1_500)])).toEqual([
      [0, 178_000],
      [1_500, 6_500],
    ]);
    expect(spans([element(jingle), element(jingle, 'previous_cue_out', -60_000)])).toEqual([
      [0, 5_000],
      [0, 5_000],
    ]);
    // The first element's previous_* anchor is the molecule's start.
    expect(spans([element(jingle, 'previous_next_track_start', 250)])).toEqual([[250, 5_250]]);
  });

  test('the total is the latest end, not the last element’s', () => {
    const timeline = placeElements([element(song, 'start'), element(jingle, 'start', 1_000)]);
    expect(timeline.durationMs).toBe(178_000);
  });

  test('an element without a primary version or a known end is skipped: no time, and not the previous one', () => {
    const timeline = placeElements([element(jingle), element(null), element(audio(null)), element(jingle, 'previous_cue_out', 1_000)]);
    expect(timeline.elements.map((e) => [e.unresolved, e.startMs, e.endMs])).toEqual([
      [null, 0, 5_000],
      ['no_primary_version', null, null],
      ['unknown_duration', null, null],
      [null, 6_000, 11_000],
    ]);
    expect(timeline).toMatchObject({ durationMs: 11_000, complete: false });
    expect(placeElements([element(null)])).toMatchObject({ durationMs: 0, complete: false });
  });
});
