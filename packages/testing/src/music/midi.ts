/** A note of a MIDI file, in beats (quarter notes) from the start. */
export interface MidiNote {
  start: number;
  length: number;
  pitch: number;
  velocity: number;
  /** 0–15; 9 is General MIDI percussion. */
  channel: number;
}

export interface MidiSong {
  bpm: number;
  notes: MidiNote[];
  /** General MIDI program of each melodic channel used (default 0, piano). */
  programs?: Partial<Record<number, number>>;
}

/** Ticks per quarter note. */
const DIVISION = 480;

/** A standard MIDI file (format 0, one track) of `song`. */
export function midiFile(song: MidiSong): Uint8Array {
  const events: Array<{ tick: number; order: number; bytes: number[] }> = [];
  const microsPerBeat = Math.round(60_000_000 / song.bpm);
  events.push({
    tick: 0,
    order: 0,
    bytes: [0xff, 0x51, 0x03, (microsPerBeat >> 16) & 0xff, (microsPerBeat >> 8) & 0xff, microsPerBeat & 0xff],
  });
  for (const [channel, program] of Object.entries(song.programs ?? {})) {
    events.push({ tick: 0, order: 1, bytes: [0xc0 | Number(channel), program ?? 0] });
  }
  for (const note of song.notes) {
    const on = Math.round(note.start * DIVISION);
    const off = Math.max(on + 1, Math.round((note.start + note.length) * DIVISION));
    events.push({ tick: on, order: 3, bytes: [0x90 | note.channel, note.pitch, note.velocity] });
    events.push({ tick: off, order: 2, bytes: [0x80 | note.channel, note.pitch, 0] });
  }
  events.sort((a, b) => a.tick - b.tick || a.order - b.order);
  const track: number[] = [];
  let tick = 0;
  for (const event of events) {
    track.push(...variableLength(event.tick - tick), ...event.bytes);
    tick = event.tick;
  }
  track.push(0, 0xff, 0x2f, 0x00);
  const header = [...ascii('MThd'), 0, 0, 0, 6, 0, 0, 0, 1, DIVISION >> 8, DIVISION & 0xff];
  return Uint8Array.from([...header, ...ascii('MTrk'), ...uint32(track.length), ...track]);
}

function variableLength(value: number): number[] {
  const bytes = [value & 0x7f];
  for (let rest = value >> 7; rest > 0; rest >>= 7) bytes.unshift((rest & 0x7f) | 0x80);
  return bytes;
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const uint32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
