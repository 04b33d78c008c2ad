/**
 * bench/accuracy/evaluation/composed.ts: the composed evaluation pieces: Bach's chorales from the
 * corpus that PyPI's music21 ships (composed.py reads them, in the benchmark's virtual environment;
 * its output is cached), transposed, played at a tempo set here by ensembles of General MIDI
 * programs that neither the tuning nor the unit tests play. A chorale longer than EXCERPT_SECONDS
 * is played as its opening bars up to then and its last two bars (cut at bar lines, so the pulse
 * runs on): the key is the one it is written in, the tempo the one it is rendered at.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom, type ChannelSettings, type MidiNote, type MidiSong } from '@catalog/testing';

export interface Chorale {
  source: string;
  tonic: number;
  mode: 'major' | 'minor';
  beatsPerBar: number;
  bars: number[];
  end: number;
  notes: Array<[number, number, number, number]>;
}
export interface ComposedPiece {
  song: MidiSong & { channels: Partial<Record<number, ChannelSettings>> };
  truth: { tonic: number; mode: 'major' | 'minor'; bpm: number };
  describe: string;
}

const EXCERPT_SECONDS = 20;
/** Four-part ensembles (soprano to bass) of programs the tuning generator and the unit tests never use. */
const ENSEMBLES: Record<string, [number, number, number, number]> = {
  woodwinds: [68, 71, 69, 70],
  brass: [60, 60, 57, 58],
  strings: [41, 41, 42, 43],
  choir: [52, 52, 53, 53],
  'reed organ': [20, 20, 20, 20],
  harpsichord: [6, 6, 6, 6],
  accordion: [21, 21, 21, 21],
  recorders: [74, 74, 71, 70],
  'string ensemble': [49, 49, 49, 49],
};

/** The first `count` chorales composed.py labels (cached by music21's corpus order and version). */
export function chorales(python: string, cacheDir: string, count: number): Chorale[] {
  const file = join(cacheDir, `chorales-${count}.jsonl`);
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    const script = join(dirname(fileURLToPath(import.meta.url)), 'composed.py');
    writeFileSync(`${file}.part`, execFileSync(python, [script, String(count)], { maxBuffer: 1 << 28, encoding: 'utf8' }));
    renameSync(`${file}.part`, file);
  }
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  if (lines.length < count) throw new Error(`music21's corpus gave ${lines.length} labelled chorales, not ${count}`);
  return lines.map((line) => JSON.parse(line) as Chorale);
}

/** Chorale `chorale` as piece `seed`: transposed, at its own tempo, by one ensemble. */
export function composedPiece(chorale: Chorale, seed: number): ComposedPiece {
  const random = seededRandom(seed * 104_729 + 7);
  const shift = Math.floor(random() * 12) - 5;
  const bpm = Math.round(56 + random() * 60);
  const names = Object.keys(ENSEMBLES);
  const ensemble = names[Math.floor(random() * names.length)]!;
  const programs = ENSEMBLES[ensemble]!;
  const excerptBeats = (EXCERPT_SECONDS * bpm) / 60;
  const tailStart = chorale.end - 2 * chorale.beatsPerBar;
  const cut = chorale.bars.filter((bar) => bar <= excerptBeats).at(-1) ?? chorale.end;
  const whole = cut >= tailStart;
  const notes: MidiNote[] = [];
  for (const [start, length, pitch, part] of chorale.notes) {
    const channel = Math.min(part, 3);
    const velocity = Math.round(72 + random() * 16);
    if (whole || start < cut) {
      const kept = whole ? length : Math.min(length, cut - start);
      notes.push({ start, length: kept, pitch: pitch + shift, velocity, channel });
    } else if (start >= tailStart) {
      notes.push({ start: start - tailStart + cut, length, pitch: pitch + shift, velocity, channel });
    }
  }
  const channels: Partial<Record<number, ChannelSettings>> = {};
  for (let channel = 0; channel < 4; channel++) channels[channel] = { volume: Math.round(100 * 10 ** ((-9 + random() * 10) / 40)) };
  return {
    song: { bpm, notes, programs: Object.fromEntries(programs.map((program, channel) => [channel, program])), channels },
    truth: { tonic: (chorale.tonic + shift + 12) % 12, mode: chorale.mode, bpm },
    describe: `${chorale.source} ${ensemble}${whole ? '' : ' excerpt'}`,
  };
}
