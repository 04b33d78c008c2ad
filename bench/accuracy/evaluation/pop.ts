/**
 * bench/accuracy/evaluation/pop.ts: the pop-style evaluation pieces, from a generator written apart
 * from the tuning one (packages/testing's generatedSong): its own chord loops (I–V–vi–IV, vi–IV–I–V,
 * i–VI–III–VII, i–iv–v–i, …), grooves (four on the floor, backbeat, half time, shuffle, bossa, and
 * drumless ballads with arpeggios and pads), General MIDI programs that neither the tuning nor the
 * unit tests play, and a mix of its own per piece. Every loop ends on the tonic chord, so the label
 * is the key the piece was made in; the tempo is the one it is written at.
 */
import { seededRandom, type ChannelSettings, type MidiNote, type MidiSong } from '@catalog/testing';

export interface PopTruth {
  tonic: number;
  mode: 'major' | 'minor';
  bpm: number;
}
export interface PopPiece {
  song: MidiSong & { channels: Partial<Record<number, ChannelSettings>> };
  truth: PopTruth;
  /** What it is, for the breakdown: the loop, the groove and the programs. */
  describe: string;
}

const MAJOR_SCALE = [0, 2, 4, 5, 7, 9, 11];
const MINOR_SCALE = [0, 2, 3, 5, 7, 8, 10];
/** Chord loops as scale degrees (0 the tonic); in minor, a degree 4 with `major5` is the harmonic V. */
const MAJOR_LOOPS = [
  [0, 4, 5, 3],
  [5, 3, 0, 4],
  [0, 3, 4, 3],
  [0, 5, 1, 4],
  [0, 2, 3, 4],
  [3, 0, 4, 5],
  [0, 3, 0, 4],
];
const MINOR_LOOPS = [
  [0, 5, 2, 6],
  [0, 3, 4, 0],
  [0, 6, 5, 6],
  [0, 5, 6, 0],
  [0, 3, 6, 2],
  [0, 4, 5, 3],
];
const GROOVES = ['four-on-the-floor', 'backbeat', 'half-time', 'shuffle', 'bossa', 'ballad'] as const;
type Groove = (typeof GROOVES)[number];
/** Programs the tuning generator and the unit tests never use. */
const CHORD_PROGRAMS = [1, 2, 6, 7, 17, 25, 26, 27, 50, 89, 90];
const PAD_PROGRAMS = [49, 52, 91, 94];
const BASS_PROGRAMS = [35, 36, 37, 39, 43];
const LEAD_PROGRAMS = [22, 41, 57, 61, 66, 68, 71, 74, 81];
const CHANNEL = { chords: 0, bass: 1, lead: 2, pad: 3, drums: 9 } as const;
const KICK = 36;
const SNARE = 38;
const CLOSED_HAT = 42;
const RIDE = 51;
const SIDE_STICK = 37;
const SECONDS = 24;

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

/** The pop piece of `seed`; its key is index's (one of the 24 in turn). */
export function popPiece(seed: number, index: number): PopPiece {
  const random = seededRandom(seed * 7919 + 13);
  const mode = index % 24 < 12 ? 'major' : 'minor';
  const tonic = (index * 7) % 12;
  const groove: Groove = index % 4 === 3 ? 'ballad' : pick(random, GROOVES.slice(0, 5));
  const bpm = Math.round(groove === 'ballad' ? 58 + random() * 40 : 78 + random() * 82);
  const loop = pick(random, mode === 'major' ? MAJOR_LOOPS : MINOR_LOOPS);
  const harmonicV = mode === 'minor' && random() < 0.5;
  const scale = mode === 'major' ? MAJOR_SCALE : MINOR_SCALE;
  const beatsPerChord = groove === 'ballad' || random() < 0.4 ? 4 : 2;
  const totalBeats = Math.max(16, Math.round((SECONDS * bpm) / 60 / (beatsPerChord * loop.length)) * beatsPerChord * loop.length);
  const base = 48 + tonic;
  const notes: MidiNote[] = [];
  const chordAt = (degree: number) =>
    [0, 2, 4].map((step) => {
      const d = degree + step;
      let pc = scale[d % 7]! + 12 * Math.floor(d / 7);
      if (harmonicV && degree === 4 && step === 1) pc += 1;
      return pc;
    });
  const swing = groove === 'shuffle' ? 1 / 6 : 0;
  const velocity = () => Math.round(70 + random() * 30);
  for (let start = 0, slot = 0; start < totalBeats; start += beatsPerChord, slot++) {
    const last = start + beatsPerChord >= totalBeats;
    const chord = chordAt(last ? 0 : loop[slot % loop.length]!);
    const root = base - 12 + (chord[0]! % 12);
    if (groove === 'ballad') {
      for (let b = 0; b < beatsPerChord * 2; b++)
        notes.push({
          start: start + b / 2,
          length: 0.9,
          pitch: base + 12 + chord[[0, 1, 2, 1][b % 4]!]!,
          velocity: velocity() - 15,
          channel: CHANNEL.chords,
        });
      for (const pc of chord) notes.push({ start, length: beatsPerChord, pitch: base + pc, velocity: 55, channel: CHANNEL.pad });
      notes.push({ start, length: beatsPerChord, pitch: root, velocity: 80, channel: CHANNEL.bass });
      continue;
    }
    const hits = groove === 'bossa' ? [0, 1.5, 2, 3.5] : groove === 'half-time' ? [0, 2] : [0, 1, 2, 3];
    for (let bar = 0; bar < beatsPerChord; bar += 4)
      for (const hit of hits.filter((h) => bar + h < beatsPerChord))
        for (const pc of chord)
          notes.push({ start: start + bar + hit, length: 0.45, pitch: base + 12 + pc, velocity: velocity() - 10, channel: CHANNEL.chords });
    for (let b = 0; b < beatsPerChord; b++) {
      const pitch = b % 2 === 1 && groove !== 'half-time' ? root + (chord[2]! - chord[0]!) : root;
      notes.push({ start: start + b, length: 0.8, pitch, velocity: velocity(), channel: CHANNEL.bass });
      drums(groove, start + b, b, swing, velocity, notes);
    }
    if (!last)
      for (let b = 0; b < beatsPerChord; b += random() < 0.5 ? 1 : 0.5)
        if (random() < 0.6)
          notes.push({
            start: start + b,
            length: 0.5,
            pitch: base + 24 + pick(random, chord),
            velocity: velocity(),
            channel: CHANNEL.lead,
          });
  }
  const programs = {
    [CHANNEL.chords]: pick(random, CHORD_PROGRAMS),
    [CHANNEL.bass]: pick(random, BASS_PROGRAMS),
    [CHANNEL.lead]: pick(random, LEAD_PROGRAMS),
    [CHANNEL.pad]: pick(random, PAD_PROGRAMS),
  };
  const gain = () => Math.round(100 * 10 ** ((-12 + random() * 14) / 40));
  const channels: Partial<Record<number, ChannelSettings>> = {};
  for (const channel of Object.values(CHANNEL)) channels[channel] = { volume: gain() };
  return {
    song: { bpm, notes, programs, channels },
    truth: { tonic, mode, bpm },
    describe: `${groove} ${mode === 'major' ? 'I' : 'i'}-${loop.join('-')}${harmonicV ? ' V' : ''} programs ${Object.values(programs).join('/')}`,
  };
}

function drums(groove: Groove, beat: number, inChord: number, swing: number, velocity: () => number, notes: MidiNote[]): void {
  const hit = (start: number, pitch: number, v = velocity()) =>
    notes.push({ start, length: 0.1, pitch, velocity: v, channel: CHANNEL.drums });
  const inBar = inChord % 4;
  if (groove === 'four-on-the-floor') hit(beat, KICK);
  if (groove === 'backbeat' && (inBar === 0 || inBar === 2)) hit(beat, KICK);
  if (groove === 'half-time' && inBar === 0) hit(beat, KICK);
  if (groove === 'bossa' && (inBar === 0 || inBar === 2)) {
    hit(beat, KICK);
    hit(beat + 0.75, KICK, 60);
  }
  if (groove === 'shuffle' && inBar % 2 === 0) hit(beat, KICK);
  if ((groove === 'backbeat' || groove === 'four-on-the-floor' || groove === 'shuffle') && inBar % 2 === 1) hit(beat, SNARE);
  if (groove === 'half-time' && inBar === 2) hit(beat, SNARE);
  if (groove === 'bossa' && (inBar === 1 || inBar === 3)) hit(beat + 0.5, SIDE_STICK, 70);
  const cymbal = groove === 'half-time' ? RIDE : CLOSED_HAT;
  hit(beat, cymbal, 60);
  hit(beat + 0.5 + swing, cymbal, 45);
}
