import { DRUM_CHANNEL, type MidiNote, type MidiSong } from './midi.js';
import type { Mode } from './patterns.js';

/** Which minor: natural (b6, b7: v and VII chords) or harmonic (b6, 7: the major V and the leading tone). */
export type MinorForm = 'natural' | 'harmonic';
type Scale = 'major' | MinorForm;
/** A triad's quality: major, minor, diminished. */
export type ChordQuality = 'M' | 'm' | 'd';
type Quality = ChordQuality;
type ChordStyle = 'sustain' | 'stabs' | 'arpeggio';
type DrumStyle = 'rock' | 'four' | 'ride';

/** Everything a generated song is made of; the ground truth of its key and tempo. */
export interface SongSpec {
  /** Pitch class of the tonic, 0 = C. */
  tonic: number;
  mode: Mode;
  minorForm: MinorForm;
  bpm: number;
  /** Swung eighths (the off-beat at two thirds of the beat) instead of straight ones. */
  swing: boolean;
  drums: DrumStyle | null;
  bars: number;
  /** Index into the progressions of the song's scale (taken modulo their number). */
  progression: number;
  chords: { style: ChordStyle; lowest: number; inversion: 0 | 1 | 2; program: number } | null;
  bass: { lowest: number; program: number } | null;
  melody: { lowest: number; program: number } | null;
  /** Seed of the melody's and the humanising's random choices. */
  seed: number;
  /**
   * A chord loop of its own, [root above the tonic, quality] one a bar, played in place of
   * `progression` (loop-based pop: a loop need not start on the tonic chord); with
   * `endOnTonic: false` the song stops wherever the loop is instead of on the tonic chord.
   */
  chordLoop?: Array<[number, ChordQuality]>;
  endOnTonic?: boolean;
}

/** Chords as [root above the tonic, quality], one a bar. */
const PROGRESSIONS: Record<Scale, Array<Array<[number, Quality]>>> = {
  major: [
    [
      [0, 'M'],
      [5, 'M'],
      [7, 'M'],
      [0, 'M'],
    ],
    [
      [0, 'M'],
      [9, 'm'],
      [5, 'M'],
      [7, 'M'],
    ],
    [
      [0, 'M'],
      [7, 'M'],
      [9, 'm'],
      [5, 'M'],
    ],
    [
      [2, 'm'],
      [7, 'M'],
      [0, 'M'],
      [0, 'M'],
    ],
    [
      [0, 'M'],
      [4, 'm'],
      [5, 'M'],
      [7, 'M'],
    ],
  ],
  natural: [
    [
      [0, 'm'],
      [5, 'm'],
      [7, 'm'],
      [0, 'm'],
    ],
    [
      [0, 'm'],
      [8, 'M'],
      [3, 'M'],
      [10, 'M'],
    ],
    [
      [0, 'm'],
      [10, 'M'],
      [8, 'M'],
      [10, 'M'],
    ],
    [
      [0, 'm'],
      [3, 'M'],
      [5, 'm'],
      [0, 'm'],
    ],
  ],
  harmonic: [
    [
      [0, 'm'],
      [5, 'm'],
      [7, 'M'],
      [0, 'm'],
    ],
    [
      [0, 'm'],
      [8, 'M'],
      [2, 'd'],
      [7, 'M'],
    ],
    [
      [0, 'm'],
      [5, 'm'],
      [0, 'm'],
      [7, 'M'],
    ],
    [
      [0, 'm'],
      [8, 'M'],
      [5, 'm'],
      [7, 'M'],
    ],
  ],
};
const TRIADS: Record<Quality, number[]> = { M: [0, 4, 7], m: [0, 3, 7], d: [0, 3, 6] };
const SCALES: Record<Scale, number[]> = {
  major: [0, 2, 4, 5, 7, 9, 11],
  natural: [0, 2, 3, 5, 7, 8, 10],
  harmonic: [0, 2, 3, 5, 7, 8, 11],
};
const CHANNEL = { chords: 0, bass: 1, melody: 2, drums: DRUM_CHANNEL } as const;
const CHORD_PROGRAMS = [0, 4, 16, 24, 48, 5, 19];
const BASS_PROGRAMS = [32, 33, 34, 38];
const MELODY_PROGRAMS = [73, 56, 65, 40, 11, 80, 0];

/** A deterministic random number generator in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

/**
 * A random song spec of about `seconds` seconds: key, tempo (60–190 BPM), feel, drums or none,
 * the parts and their registers, inversion and instruments; `fixed` overrides any of them.
 */
export function randomSongSpec(random: () => number, seconds: number, fixed: Partial<SongSpec> = {}): SongSpec {
  const bpm = fixed.bpm ?? Math.round(60 + random() * 130);
  const parts = pick(random, ['all', 'all', 'chords-bass', 'chords-melody', 'bass-melody'] as const);
  const spec: SongSpec = {
    tonic: Math.floor(random() * 12),
    mode: random() < 0.5 ? 'major' : 'minor',
    minorForm: random() < 0.5 ? 'natural' : 'harmonic',
    bpm,
    swing: random() < 0.3,
    drums: random() < 0.65 ? pick(random, ['rock', 'four', 'ride'] as const) : null,
    bars: Math.max(8, Math.round((seconds * bpm) / 240)),
    progression: Math.floor(random() * 5),
    chords:
      parts === 'bass-melody'
        ? null
        : {
            style: pick(random, ['sustain', 'stabs', 'arpeggio'] as const),
            lowest: pick(random, [48, 55, 60, 67]),
            inversion: pick(random, [0, 1, 2] as const),
            program: pick(random, CHORD_PROGRAMS),
          },
    bass: parts === 'chords-melody' ? null : { lowest: pick(random, [28, 33, 36, 40]), program: pick(random, BASS_PROGRAMS) },
    melody: parts === 'chords-bass' ? null : { lowest: pick(random, [60, 67, 72]), program: pick(random, MELODY_PROGRAMS) },
    seed: Math.floor(random() * 2 ** 31),
  };
  return { ...spec, ...fixed };
}

/** The MIDI song of a spec: chords (channel 0), bass (1), melody (2), drums (9); the last bar is the tonic chord. */
export function generatedSong(spec: SongSpec): MidiSong {
  const random = seededRandom(spec.seed);
  const scale: Scale = spec.mode === 'major' ? 'major' : spec.minorForm;
  const progression = spec.chordLoop ?? PROGRESSIONS[scale][spec.progression % PROGRESSIONS[scale].length]!;
  const tonicChord: [number, Quality] = spec.chordLoop ? [0, spec.mode === 'major' ? 'M' : 'm'] : progression[0]!;
  const offbeat = spec.swing ? 2 / 3 : 1 / 2;
  const notes: MidiNote[] = [];
  let previous = spec.melody ? spec.melody.lowest + 7 : 0;
  for (let bar = 0; bar < spec.bars; bar++) {
    const last = bar === spec.bars - 1 && spec.endOnTonic !== false;
    const [root, quality] = last ? tonicChord : progression[bar % progression.length]!;
    const start = bar * 4;
    const chordTones = TRIADS[quality].map((interval) => (spec.tonic + root + interval) % 12);
    if (spec.chords) notes.push(...chordBar(spec.chords, chordTones, start, offbeat));
    if (spec.bass) notes.push(...bassBar(spec.bass.lowest, chordTones, start, offbeat));
    if (spec.melody) {
      const line = melodyBar(
        random,
        spec.melody.lowest,
        chordTones,
        SCALES[scale].map((s) => (spec.tonic + s) % 12),
        start,
        offbeat,
        previous,
      );
      notes.push(...line);
      previous = line.at(-1)?.pitch ?? previous;
    }
    if (spec.drums) notes.push(...drumBar(spec.drums, start, offbeat));
  }
  return { bpm: spec.bpm, notes: humanised(random, notes), programs: programsOf(spec) };
}

function programsOf(spec: SongSpec): Partial<Record<number, number>> {
  return {
    [CHANNEL.chords]: spec.chords?.program ?? 0,
    [CHANNEL.bass]: spec.bass?.program ?? 0,
    [CHANNEL.melody]: spec.melody?.program ?? 0,
  };
}

/** The lowest pitch of pitch class `pc` at or above `lowest`. */
const above = (pc: number, lowest: number) => lowest + ((pc - lowest + 120) % 12);

function chordBar(chords: NonNullable<SongSpec['chords']>, tones: number[], start: number, offbeat: number): MidiNote[] {
  const root = above(tones[0]!, chords.lowest);
  const voicing = tones.map((pc) => above(pc, root)).map((p, i) => (i < chords.inversion ? p + 12 : p));
  const note = (at: number, length: number, pitch: number, velocity: number) => ({
    start: start + at,
    length,
    pitch,
    velocity,
    channel: CHANNEL.chords,
  });
  if (chords.style === 'sustain') return voicing.map((p) => note(0, 3.9, p, 72));
  if (chords.style === 'stabs')
    return [0, 1, 2, 3].flatMap((beat) => voicing.map((p) => note(beat + offbeat, 0.3, p, beat % 2 === 0 ? 70 : 62)));
  const sorted = [...voicing].sort((a, b) => a - b);
  const order = [sorted[0]!, sorted[1]!, sorted[2]!, sorted[1]!];
  return [0, 1, 2, 3].flatMap((beat) => [note(beat, 0.45, order[beat % 4]!, 70), note(beat + offbeat, 0.3, order[(beat + 2) % 4]!, 60)]);
}

function bassBar(lowest: number, tones: number[], start: number, offbeat: number): MidiNote[] {
  const root = above(tones[0]!, lowest);
  const fifth = above(tones[2]!, root);
  const note = (at: number, length: number, pitch: number, velocity: number) => ({
    start: start + at,
    length,
    pitch,
    velocity,
    channel: CHANNEL.bass,
  });
  return [note(0, 0.9, root, 96), note(1.5 - 0.5 + offbeat, 0.4, root, 80), note(2, 0.9, fifth, 88), note(3, 0.9, root, 84)];
}

function melodyBar(
  random: () => number,
  lowest: number,
  chord: number[],
  scale: number[],
  start: number,
  offbeat: number,
  previous: number,
): MidiNote[] {
  const notes: MidiNote[] = [];
  let pitch = previous;
  for (let beat = 0; beat < 4; beat++) {
    const candidates = (beat % 2 === 0 ? chord : scale).flatMap((pc) => [above(pc, lowest), above(pc, lowest) + 12]);
    pitch = nearest(candidates, pitch + Math.round((random() - 0.5) * 8));
    const split = random() < 0.45;
    notes.push({
      start: start + beat,
      length: split ? offbeat * 0.9 : 0.9,
      pitch,
      velocity: 84 + Math.floor(random() * 12),
      channel: CHANNEL.melody,
    });
    if (split) {
      const passing = scale.flatMap((pc) => [above(pc, lowest), above(pc, lowest) + 12]);
      const next = nearest(
        passing.filter((p) => p !== pitch),
        pitch + (random() < 0.5 ? -2 : 2),
      );
      notes.push({ start: start + beat + offbeat, length: (1 - offbeat) * 0.9, pitch: next, velocity: 72, channel: CHANNEL.melody });
      pitch = next;
    }
  }
  return notes;
}

const nearest = (candidates: number[], target: number) =>
  candidates.reduce((best, p) => (Math.abs(p - target) < Math.abs(best - target) ? p : best));

const KICK = 36;
const SNARE = 38;
const CLOSED_HAT = 42;
const OPEN_HAT = 46;
const RIDE = 51;

function drumBar(style: DrumStyle, start: number, offbeat: number): MidiNote[] {
  const notes: MidiNote[] = [];
  const hit = (at: number, pitch: number, velocity: number) =>
    notes.push({ start: start + at, length: 0.2, pitch, velocity, channel: CHANNEL.drums });
  for (let beat = 0; beat < 4; beat++) {
    if (style === 'four') hit(beat, KICK, 112);
    else if (beat % 2 === 0) hit(beat, KICK, 112);
    if (beat % 2 === 1) hit(beat, SNARE, 100);
    if (style === 'rock') hit(beat, CLOSED_HAT, 70);
    if (style === 'ride') hit(beat, RIDE, 78);
    hit(beat + offbeat, style === 'four' ? OPEN_HAT : style === 'ride' ? RIDE : CLOSED_HAT, 55);
  }
  if (style === 'rock') hit(2 + offbeat, KICK, 90);
  return notes;
}

/** Timing off the grid by up to ±10 ms-ish (±0.015 beat) and velocities ±6: played, not quantised. */
function humanised(random: () => number, notes: MidiNote[]): MidiNote[] {
  return notes.map((note) => ({
    ...note,
    start: Math.max(0, note.start + (random() - 0.5) * 0.03),
    velocity: Math.max(1, Math.min(127, note.velocity + Math.round((random() - 0.5) * 12))),
  }));
}
