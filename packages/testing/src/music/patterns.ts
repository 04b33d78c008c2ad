import { DRUM_CHANNEL, type MidiNote } from './midi.js';

const KICK = 36;
const SNARE = 38;
const CLOSED_HAT = 42;

/**
 * A rock beat in 4/4 from beat `start`: kick on 1 and 3, snare on 2 and 4, closed hi-hat on every
 * eighth (quieter), `bars` bars.
 */
export function drumPattern(bars: number, start = 0): MidiNote[] {
  const notes: MidiNote[] = [];
  for (let beat = 0; beat < bars * 4; beat++) {
    const at = start + beat;
    notes.push({
      start: at,
      length: 0.25,
      pitch: beat % 2 === 0 ? KICK : SNARE,
      velocity: beat % 2 === 0 ? 115 : 105,
      channel: DRUM_CHANNEL,
    });
    notes.push({ start: at, length: 0.25, pitch: CLOSED_HAT, velocity: 70, channel: DRUM_CHANNEL });
    notes.push({ start: at + 0.5, length: 0.25, pitch: CLOSED_HAT, velocity: 55, channel: DRUM_CHANNEL });
  }
  return notes;
}

export type Mode = 'major' | 'minor';

/** Triads (semitones above the tonic) of I–IV–V–I, and of i–iv–V–i with the harmonic minor's major V. */
const PROGRESSIONS: Record<Mode, number[][]> = {
  major: [
    [0, 4, 7],
    [5, 9, 12],
    [7, 11, 14],
    [0, 4, 7],
  ],
  minor: [
    [0, 3, 7],
    [5, 8, 12],
    [7, 11, 14],
    [0, 3, 7],
  ],
};

/**
 * The cadence I–IV–V–I (or i–iv–V–i) in the key of `tonic` (pitch class, 0 = C), `repeats` times,
 * `beatsPerChord` beats a chord, from beat `start`: a triad around middle C and its root in the
 * bass, on `channel`.
 */
export function cadence(
  tonic: number,
  mode: Mode,
  options: { repeats?: number; beatsPerChord?: number; start?: number; channel?: number } = {},
): MidiNote[] {
  const { repeats = 2, beatsPerChord = 2, start = 0, channel = 0 } = options;
  const base = 60 + (tonic <= 6 ? tonic : tonic - 12);
  const notes: MidiNote[] = [];
  let at = start;
  for (let r = 0; r < repeats; r++) {
    for (const chord of PROGRESSIONS[mode]) {
      for (const interval of chord) notes.push({ start: at, length: beatsPerChord * 0.95, pitch: base + interval, velocity: 80, channel });
      notes.push({ start: at, length: beatsPerChord * 0.95, pitch: base - 24 + chord[0]!, velocity: 85, channel });
      at += beatsPerChord;
    }
  }
  return notes;
}

/**
 * A song for benchmarks: drums, the cadence on piano (channel 0) and a bass line (channel 1,
 * fingered bass), in the key of `tonic`, `bars` bars of 4/4.
 */
export function demoSong(bars: number, tonic: number, mode: Mode): MidiNote[] {
  const notes = drumPattern(bars);
  for (let bar = 0; bar < bars; bar += 4) {
    notes.push(...cadence(tonic, mode, { repeats: 1, beatsPerChord: 4, start: bar * 4 }).filter((n) => n.start < bars * 4));
    for (let beat = 0; beat < 16 && bar * 4 + beat < bars * 4; beat++) {
      const chord = PROGRESSIONS[mode][Math.floor(beat / 4)]!;
      notes.push({ start: bar * 4 + beat, length: 0.9, pitch: 36 + tonic + chord[beat % 2 === 0 ? 0 : 2]!, velocity: 90, channel: 1 });
    }
  }
  return notes;
}
