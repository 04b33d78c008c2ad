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
  /**
   * Detunes every channel by this many cents (±200 at most) with a pitch bend at the start (the
   * General MIDI default bend range is ±2 semitones): music tuned off A440.
   */
  tuningCents?: number;
  /** How each channel is played back: a mix, an articulation and a touch other than the sound font's own. */
  channels?: Partial<Record<number, ChannelSettings>>;
}

export interface ChannelSettings {
  /** Controller 7, 0–127 (100 unless set). */
  volume?: number;
  /** Offsets to the instruments' attack and release times (timecents: 1200 doubles them; sound font 2.01 NRPNs). */
  attackCents?: number;
  releaseCents?: number;
  /** Exponent of the velocity curve: a note's velocity v is played as 127 · (v / 127)^γ (1 unless set). */
  velocityCurve?: number;
}

/** Ticks per quarter note. */
const DIVISION = 480;
/** Tempo of a medley file: every song's times are converted to it. */
const MEDLEY_BPM = 120;
/** General MIDI percussion (channel 10, zero-based). */
export const DRUM_CHANNEL = 9;
const DEFAULT_VOLUME = 100;
/** Sound font 2.01 generators an NRPN (MSB 120, LSB the generator) offsets; its data counts 2 timecents a step from 8192. */
const NRPN_GENERATORS = { attackCents: 34, releaseCents: 38 } as const;
const NRPN_TIMECENTS_PER_STEP = 2;

interface TimedEvent {
  tick: number;
  order: number;
  bytes: number[];
}

/** A standard MIDI file (format 0, one track) of `song`. */
export function midiFile(song: MidiSong): Uint8Array {
  return encode(song.bpm, songEvents(song, 0, 1));
}

/** Seconds from the start of `song` to the end of its last note. */
export function songSeconds(song: MidiSong): number {
  const beats = song.notes.reduce((end, note) => Math.max(end, note.start + note.length), 0);
  return (beats * 60) / song.bpm;
}

/**
 * One MIDI file playing `songs` one after the other, each `gapSeconds` after the end of the one
 * before (controllers reset and notes stopped between them), and where each starts (seconds): one
 * synthesizer run renders them all, and the audio is cut at those times.
 */
export function medleyFile(songs: MidiSong[], gapSeconds: number): { midi: Uint8Array; startSeconds: number[] } {
  const events: TimedEvent[] = [];
  const startSeconds: number[] = [];
  let at = 0;
  for (const song of songs) {
    startSeconds.push(at);
    const offset = Math.round((at * MEDLEY_BPM * DIVISION) / 60);
    for (let channel = 0; channel < 16; channel++) {
      events.push({ tick: offset, order: 0, bytes: [0xb0 | channel, 123, 0] }, { tick: offset, order: 0, bytes: [0xb0 | channel, 121, 0] });
    }
    events.push(...songEvents(song, offset, MEDLEY_BPM / song.bpm));
    at += songSeconds(song) + gapSeconds;
  }
  return { midi: encode(MEDLEY_BPM, events), startSeconds };
}

/** The events of `song` from tick `offset`, its beats scaled by `scale` (to another file tempo). */
function songEvents(song: MidiSong, offset: number, scale: number): TimedEvent[] {
  const events: TimedEvent[] = [];
  const programs: Partial<Record<number, number>> = { ...song.programs };
  if (scale !== 1) for (let channel = 0; channel < 16; channel++) if (channel !== DRUM_CHANNEL) programs[channel] ??= 0;
  for (const [channel, program] of Object.entries(programs)) {
    events.push({ tick: offset, order: 1, bytes: [0xc0 | Number(channel), program ?? 0] });
  }
  if (song.tuningCents || scale !== 1) {
    const bend = Math.max(0, Math.min(16_383, Math.round(8192 + ((song.tuningCents ?? 0) / 200) * 8192)));
    for (let channel = 0; channel < 16; channel++) events.push({ tick: offset, order: 1, bytes: [0xe0 | channel, bend & 0x7f, bend >> 7] });
  }
  // A medley sets every channel, so that one song's settings do not carry into the next.
  for (let channel = 0; channel < 16; channel++) {
    const settings = song.channels?.[channel];
    if (settings || scale !== 1) events.push(...channelEvents(offset, channel, settings ?? {}));
  }
  for (const note of song.notes) {
    const on = offset + Math.round(note.start * scale * DIVISION);
    const off = Math.max(on + 1, offset + Math.round((note.start + note.length) * scale * DIVISION));
    const velocity = played(note.velocity, song.channels?.[note.channel]?.velocityCurve);
    events.push({ tick: on, order: 3, bytes: [0x90 | note.channel, note.pitch, velocity] });
    events.push({ tick: off, order: 2, bytes: [0x80 | note.channel, note.pitch, 0] });
  }
  return events;
}

const played = (velocity: number, curve = 1) =>
  curve === 1 ? velocity : Math.max(1, Math.min(127, Math.round(127 * (velocity / 127) ** curve)));

function channelEvents(tick: number, channel: number, settings: ChannelSettings): TimedEvent[] {
  const control = (number: number, value: number) => ({ tick, order: 1, bytes: [0xb0 | channel, number, value] });
  const volume = Math.max(0, Math.min(127, Math.round(settings.volume ?? DEFAULT_VOLUME)));
  const events = [control(7, volume)];
  for (const [name, generator] of Object.entries(NRPN_GENERATORS)) {
    const cents = settings[name as keyof typeof NRPN_GENERATORS] ?? 0;
    const data = Math.max(0, Math.min(16_383, 8192 + Math.round(cents / NRPN_TIMECENTS_PER_STEP)));
    events.push(control(99, 120), control(98, generator), control(6, data >> 7), control(38, data & 0x7f));
  }
  return events;
}

function encode(bpm: number, events: TimedEvent[]): Uint8Array {
  const microsPerBeat = Math.round(60_000_000 / bpm);
  const tempo = [0xff, 0x51, 0x03, (microsPerBeat >> 16) & 0xff, (microsPerBeat >> 8) & 0xff, microsPerBeat & 0xff];
  const sorted = [{ tick: 0, order: -1, bytes: tempo }, ...events].sort((a, b) => a.tick - b.tick || a.order - b.order);
  const track: number[] = [];
  let tick = 0;
  for (const event of sorted) {
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
