/**
 * bench/accuracy/grooves.ts: the drums and bass of the tuning corpus's `groove` pieces (decision
 * 0186): drummed pop whose drums and bass play otherwise than the tuning generator's three kits and
 * one bass figure, so that the tempo's octave choice does not learn one groove's off-beats. Every
 * groove plays the quarter-note beat the piece's tempo names (no half-time feel: the label is the
 * tempo the piece was written at, and a half-time groove would make it a matter of taste).
 */
import { DRUM_CHANNEL, seededRandom, type MidiNote, type MidiSong } from '@catalog/testing';

const BASS = 1;
const GM = {
  kick: 36,
  sideStick: 37,
  snare: 38,
  clap: 39,
  closedHat: 42,
  pedalHat: 44,
  openHat: 46,
  lowTom: 45,
  crash: 49,
  ride: 51,
  tambourine: 54,
  cowbell: 56,
  shaker: 82,
} as const;

/** One bar of a groove: [beat within the bar, GM drum, velocity]. */
type Hit = [number, number, number];
const every = (step: number, drum: number, loud: number, soft: number): Hit[] =>
  Array.from({ length: Math.round(4 / step) }, (_, i) => [i * step, drum, (i * step) % 1 === 0 ? loud : soft] as Hit);

/**
 * The grooves: sixteenth hats; hats on the beats only; kick and snare alone; a hip-hop kick off
 * the beat; disco (kick every beat, open hat between, sixteenth hats); claps and a shaker; toms on
 * eighths; side stick and ride (a soft ballad kit); triplet hats (a shuffle's 12/8 feel over the
 * quarter beat); tambourine on eighths with a backbeat.
 */
export const GROOVES = {
  sixteenths: [
    [0, GM.kick, 110],
    [2, GM.kick, 104],
    [2.5, GM.kick, 86],
    [1, GM.snare, 100],
    [3, GM.snare, 100],
    ...every(0.25, GM.closedHat, 72, 48),
  ],
  quarterHats: [[0, GM.kick, 110], [2, GM.kick, 104], [1, GM.snare, 98], [3, GM.snare, 98], ...every(1, GM.closedHat, 66, 66)],
  kickSnare: [
    [0, GM.kick, 112],
    [1.5, GM.kick, 90],
    [2, GM.kick, 104],
    [1, GM.snare, 102],
    [3, GM.snare, 102],
  ],
  hipHop: [
    [0, GM.kick, 112],
    [0.75, GM.kick, 92],
    [2.5, GM.kick, 100],
    [1, GM.snare, 104],
    [3, GM.snare, 104],
    ...every(0.5, GM.closedHat, 64, 52),
  ],
  disco: [
    ...every(1, GM.kick, 112, 112),
    [1, GM.clap, 96],
    [3, GM.clap, 96],
    [0.5, GM.openHat, 70],
    [1.5, GM.openHat, 70],
    [2.5, GM.openHat, 70],
    [3.5, GM.openHat, 70],
    ...every(0.25, GM.pedalHat, 46, 38),
  ],
  clapShaker: [[0, GM.kick, 110], [2.5, GM.kick, 96], [1, GM.clap, 100], [3, GM.clap, 100], ...every(0.25, GM.shaker, 64, 50)],
  toms: [[0, GM.kick, 110], [2, GM.kick, 100], [1, GM.snare, 96], [3, GM.snare, 96], ...every(0.5, GM.lowTom, 80, 66)],
  softKit: [[0, GM.kick, 90], [2, GM.kick, 84], [1, GM.sideStick, 80], [3, GM.sideStick, 80], ...every(0.5, GM.ride, 60, 50)],
  triplets: [[0, GM.kick, 108], [2, GM.kick, 100], [1, GM.snare, 98], [3, GM.snare, 98], ...every(1 / 3, GM.closedHat, 66, 50)],
  tambourine: [
    [0, GM.kick, 108],
    [2, GM.kick, 100],
    [1, GM.snare, 100],
    [3, GM.snare, 100],
    ...every(0.5, GM.tambourine, 62, 56),
    [0, GM.cowbell, 50],
  ],
} satisfies Record<string, Hit[]>;
export type Groove = keyof typeof GROOVES;
export const GROOVE_NAMES = Object.keys(GROOVES) as Groove[];

/**
 * How the bass plays each bar's root: a note a beat; eighths; the bar's first note held; root and
 * octave in eighths; a syncopated figure (1, the and of 2, 3, the and of 4).
 */
export const BASS_FIGURES = {
  beats: [
    [0, 0.9, 0],
    [1, 0.9, 0],
    [2, 0.9, 0],
    [3, 0.9, 0],
  ],
  eighths: Array.from({ length: 8 }, (_, i) => [i / 2, 0.45, 0]),
  held: [[0, 3.9, 0]],
  octaves: Array.from({ length: 8 }, (_, i) => [i / 2, 0.45, i % 2 === 0 ? 0 : 12]),
  syncopated: [
    [0, 1.4, 0],
    [1.5, 0.9, 0],
    [2, 0.4, 0],
    [3.5, 0.45, 0],
  ],
} satisfies Record<string, Array<[number, number, number]>>;
export type BassFigure = keyof typeof BASS_FIGURES;
export const BASS_FIGURE_NAMES = Object.keys(BASS_FIGURES) as BassFigure[];

/** A groove piece's drums and bass: the groove, the bass figure, and a crash on every fourth bar's downbeat or not. */
export interface GrooveSpec {
  groove: Groove;
  bass: BassFigure;
  crashes: boolean;
}

/**
 * `song` (a loop-based pop piece without drums) with the groove's drums and its bass replaced by
 * the figure on each bar's root (the pitch of the bar's first bass note), humanised by `seed`.
 */
export function withGroove(song: MidiSong, spec: GrooveSpec, seed: number): MidiSong {
  const random = seededRandom(seed);
  const jitter = () => (random() - 0.5) * 0.03;
  const louder = (velocity: number) => Math.max(1, Math.min(127, velocity + Math.round((random() - 0.5) * 12)));
  const bars = Math.ceil(Math.max(...song.notes.map((note) => note.start + note.length)) / 4);
  const roots = new Map<number, number>();
  for (const note of song.notes)
    if (note.channel === BASS && !roots.has(Math.floor(note.start / 4))) roots.set(Math.floor(note.start / 4), note.pitch);
  const notes: MidiNote[] = song.notes.filter((note) => note.channel !== BASS && note.channel !== DRUM_CHANNEL);
  for (let bar = 0; bar < bars; bar++) {
    const start = bar * 4;
    const last = bar === bars - 1;
    for (const [at, drum, velocity] of last ? GROOVES[spec.groove].filter(([at]) => at === 0) : GROOVES[spec.groove])
      notes.push({
        start: Math.max(0, start + at + jitter()),
        length: 0.2,
        pitch: drum,
        velocity: louder(velocity),
        channel: DRUM_CHANNEL,
      });
    if (spec.crashes && bar % 4 === 0) notes.push({ start, length: 1, pitch: GM.crash, velocity: louder(84), channel: DRUM_CHANNEL });
    const root = roots.get(bar);
    if (root === undefined) continue;
    for (const [at, length, above] of last ? [[0, 3.9, 0] as const] : BASS_FIGURES[spec.bass])
      notes.push({
        start: Math.max(0, start + at + jitter()),
        length,
        pitch: root + above,
        velocity: louder(at % 1 === 0 ? 92 : 80),
        channel: BASS,
      });
  }
  return { ...song, notes };
}
