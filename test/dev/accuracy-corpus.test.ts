import { BALLAD_BASS, balladBass, broadcast, drumsAlone, hasDrums, isMp3, songOf, tuningCorpus } from '../../bench/accuracy/corpus.js';
import { homophonicSong, type Writing } from '../../bench/accuracy/homophonic.js';
import { DRUM_CHANNEL } from '@catalog/testing';
import { BASS_FIGURE_NAMES, GROOVE_NAMES, withGroove } from '../../bench/accuracy/grooves.js';

/** The tuning corpus's drumless ballads and broadcast pieces (bench/accuracy/corpus.ts): specs only, nothing rendered. */
test('the ballads are drumless pop loops at slow and mid tempi, their bass held a bar, two beats or in the song pattern', () => {
  const ballads = tuningCorpus(['ballad']);
  expect(ballads.length).toBe(128);
  for (const piece of ballads) {
    expect(piece.spec.drums).toBeNull();
    expect(piece.spec.chordLoop).toBeDefined();
    expect(piece.truth.bpm).toBeGreaterThanOrEqual(56);
    expect(piece.truth.bpm).toBeLessThanOrEqual(112);
    expect(songOf(piece).notes.some((note) => note.channel === 9)).toBe(false);
  }
  expect(new Set(ballads.map((piece) => piece.balladBass))).toEqual(new Set(BALLAD_BASS));
  expect(new Set(ballads.map((piece) => piece.degradation))).toEqual(new Set(['clean', 'broadcast', 'mp3', 'noise']));
});

test('a ballad bass held a bar sounds once a bar, held two beats twice a bar, and leaves the other parts alone', () => {
  const song = {
    bpm: 80,
    programs: {},
    notes: [0, 1.5, 2, 3, 4, 5.5, 6, 7].flatMap((start) => [
      { start: start + 0.01, length: 0.9, pitch: 40, velocity: 90, channel: 1 },
      { start, length: 0.3, pitch: 72, velocity: 70, channel: 0 },
    ]),
  };
  const bass = (how: (typeof BALLAD_BASS)[number]) => balladBass(song, how).notes.filter((note) => note.channel === 1);
  expect(bass('whole').map((note) => [Math.round(note.start), note.length])).toEqual([
    [0, 3.9],
    [4, 3.9],
  ]);
  expect(bass('half').map((note) => Math.round(note.start))).toEqual([0, 2, 4, 6]);
  expect(bass('pattern')).toHaveLength(8);
  expect(balladBass(song, 'whole').notes.filter((note) => note.channel === 0)).toHaveLength(8);
});

test('a tuning piece as broadcast is its own MP3 piece, without a spoken intro', () => {
  const piece = tuningCorpus(['homophonic']).find((p) => p.speech !== null)!;
  const aired = broadcast(piece);
  expect(aired.id).toBe(`${piece.id}-broadcast`);
  expect(aired.degradation).toBe('broadcast');
  expect(aired.speech).toBeNull();
  expect(isMp3(aired)).toBe(true);
  expect(aired.truth).toEqual(piece.truth);
});

test('a drummed tuning piece played by its drums alone is its own piece with every drum note and no other', () => {
  const [song, groove] = [tuningCorpus(['song']).find(hasDrums)!, tuningCorpus(['groove'])[0]!];
  for (const piece of [song, groove]) {
    const alone = drumsAlone(piece);
    expect(alone.id).not.toBe(piece.id);
    expect(alone.truth).toEqual(piece.truth);
    const drums = songOf(piece).notes.filter((note) => note.channel === DRUM_CHANNEL);
    expect(drums.length).toBeGreaterThan(0);
    expect(songOf(alone).notes).toEqual(drums);
  }
  expect(() => drumsAlone(tuningCorpus(['ballad'])[0]!)).toThrow('has no drums');
});

test('the groove pieces are drummed pop loops of every groove and bass figure, half of them with reverb and chorus', () => {
  const grooves = tuningCorpus(['groove']);
  expect(grooves.length).toBe(192);
  for (const piece of grooves) {
    expect(piece.spec.chordLoop).toBeDefined();
    expect(piece.truth.bpm).toBeGreaterThanOrEqual(64);
    expect(piece.truth.bpm).toBeLessThanOrEqual(180);
    expect(songOf(piece).notes.some((note) => note.channel === 9)).toBe(true);
  }
  expect(new Set(grooves.map((piece) => piece.groove!.groove))).toEqual(new Set(GROOVE_NAMES));
  expect(new Set(grooves.map((piece) => piece.groove!.bass))).toEqual(new Set(BASS_FIGURE_NAMES));
  expect(grooves.filter((piece) => piece.effects).length).toBe(96);
});

test("a groove replaces the drums and plays its bass figure on each bar's root, the last bar held", () => {
  const song = {
    bpm: 100,
    programs: {},
    notes: [0, 2, 4, 6, 8, 10].flatMap((start) => [
      { start: start + 0.01, length: 0.9, pitch: start < 4 ? 40 : start < 8 ? 45 : 43, velocity: 90, channel: 1 },
      { start, length: 0.2, pitch: 36, velocity: 100, channel: 9 },
      { start, length: 1.9, pitch: 72, velocity: 70, channel: 0 },
    ]),
  };
  const played = withGroove(song, { groove: 'quarterHats', bass: 'eighths', crashes: false }, 7);
  const bass = played.notes.filter((note) => note.channel === 1);
  expect(bass.map((note) => note.pitch)).toEqual([...Array(8).fill(40), ...Array(8).fill(45), 43]);
  expect(bass.at(-1)!.length).toBeCloseTo(3.9);
  const hats = played.notes.filter((note) => note.channel === 9 && note.pitch === 42);
  expect(hats).toHaveLength(9); // four a bar, and the last bar its downbeat only
  expect(played.notes.filter((note) => note.channel === 0)).toHaveLength(6);
});

test("a homophonic piece plays only its key's notes, each tone of its tonic triad a good share of the time (decision 0190)", () => {
  // Minor: the harmonic minor's leading tone (V) and the natural minor's seventh (VII) both.
  const scales = { major: [0, 2, 4, 5, 7, 9, 11], minor: [0, 2, 3, 5, 7, 8, 10, 11] };
  for (const piece of tuningCorpus(['homophonic'])) {
    const { tonic, mode } = piece.truth;
    const notes = songOf(piece).notes;
    const inKey = (pitch: number) => scales[mode].includes((((pitch - tonic) % 12) + 12) % 12);
    expect(notes.filter((note) => !inKey(note.pitch))).toEqual([]);
    // The tonic triad sounds a good share of the time: before 0190 most chords were their root in three octaves.
    const time = (pcs: number[]) =>
      notes.filter((note) => pcs.includes((((note.pitch - tonic) % 12) + 12) % 12)).reduce((sum, note) => sum + note.length, 0);
    const total = time([...Array(12).keys()]);
    for (const interval of [0, mode === 'major' ? 4 : 3, 7]) expect(time([interval]) / total).toBeGreaterThan(0.08);
  }
});

test('half the homophonic tuning pieces move in eighths, the more the busier, and every other is written as before (decision 0192)', () => {
  const pieces = tuningCorpus(['homophonic']);
  const busy = pieces.filter((piece) => piece.homophonic!.writing?.busy !== undefined);
  expect(busy.length / pieces.length).toBeGreaterThan(0.35);
  expect(busy.length / pieces.length).toBeLessThan(0.65);
  expect(pieces.filter((piece) => piece.homophonic!.writing !== undefined && !busy.includes(piece))).toEqual([]);
  const { writing: _, ...plain } = pieces[0]!.homophonic!;
  const offBeat = (writing: Writing) => {
    const notes = homophonicSong({ ...plain, writing }).notes;
    return notes.filter((note) => Math.abs((note.start % 1) - 0.5) < 0.05).length / notes.length;
  };
  expect(offBeat({ busy: 0.8 })).toBeGreaterThan(offBeat({ busy: 0.2 }));
  expect(offBeat({ busy: 0.2 })).toBeGreaterThan(offBeat({}));
});

test('a homophonic piece in three ends each phrase on a downbeat held a bar; an upbeat and fermatas shift what follows by a beat', () => {
  const spec = { tonic: 0, mode: 'major' as const, bpm: 72, bars: 8, ensemble: 'organ' as const, seed: 5 };
  // The soprano is never tied over: its notes held past `beats` are the cadence chords (and in a phrase of four, a chord now and then held two).
  const held = (writing: Writing, beats: number) =>
    homophonicSong({ ...spec, writing })
      .notes.filter((note) => note.channel === 2 && note.length > beats)
      .map((note) => Math.round(note.start));
  // Phrases of four bars of three: the cadence chord on the fourth bar's downbeat, held the bar.
  expect(held({ triple: true }, 2.5).length).toBeGreaterThan(1);
  expect(held({ triple: true }, 2.5).every((start) => start % 12 === 9)).toBe(true);
  const cadences = (writing: Writing, phrase: number) => new Set(held(writing, 1.9).map((start) => start % phrase));
  expect(cadences({}, 8).has(6)).toBe(true);
  expect(cadences({ pickup: true }, 8).has(7)).toBe(true);
  expect(cadences({ pickup: true }, 8).has(6)).toBe(false);
  expect(held({ fermata: true }, 2.5).every((start) => start % 9 === 6)).toBe(true);
  expect(held({ fermata: true }, 2.5).length).toBeGreaterThan(1);
});
