/**
 * bench/accuracy/corpus.ts: the tuning corpus, as specs (the audio is rendered from them into a
 * cache, never committed). Two splits of one generator that never share a seed or a sound font:
 *   tuning      FluidR3 (the font the analyzers were first tuned on), TimGM6mb, CSound's GM bank and
 *               OPL3 FM (decision 0144), 192 pieces each;
 *   validation  MuseScore General, 72 pieces: once the held-out split, read for six designs and so
 *               spent (decision 0162); a validation split of tuning now. The targets are judged on
 *               the evaluation sets (evaluation/sets.ts), which tuning never reads.
 * Tuning also learns from each tuning piece replayed with other mixes and touch (replayed()).
 * Every piece: one of the 24 keys in turn (minor ones natural or harmonic), 60–190 BPM, straight
 * or swung, drums or none, parts in random registers, inversions and instruments, and one
 * degradation in turn (the degradations and the keys cycle with coprime periods).
 */
import {
  DRUM_CHANNEL,
  generatedSong,
  type ChordQuality,
  randomSongSpec,
  seededRandom,
  type ChannelSettings,
  type MidiSong,
  type SongSpec,
  type SoundFontName,
} from '@catalog/testing';
import { BASS_FIGURE_NAMES, GROOVE_NAMES, withGroove, type GrooveSpec } from './grooves.js';
import { homophonicSong, homophonicSpec, type HomophonicSpec } from './homophonic.js';

/**
 * Bump when what a piece sounds like changes while the piece and its MIDI file do not (the cache is
 * keyed by it; a file's name already hashes both, pieceFile()).
 */
export const GENERATOR_VERSION = 1;
export const SPLITS = ['tuning', 'validation'] as const;
export type Split = (typeof SPLITS)[number];
export const DEGRADATIONS = ['clean', 'mp3', 'tuning', 'noise', 'fades', 'speech', 'all'] as const;
/**
 * `broadcast`, outside the song pieces' cycle (so their audio stays as it was): band-limited,
 * loudness-normalised and limited, pink noise, MP3 at 128 kbit/s, as a station's feed sounds
 * (render.ts); the ballads' cycle (BALLAD_DEGRADATIONS) and broadcast() use it.
 */
export type Degradation = (typeof DEGRADATIONS)[number] | 'broadcast';
const BALLAD_DEGRADATIONS = ['clean', 'broadcast', 'mp3', 'noise'] as const;
/** Seconds of music in a piece (a spoken intro comes on top). */
const PIECE_SECONDS = 30;

/**
 * The tuning corpus's generators: `song`, generatedSong's own progressions, always ending on the
 * tonic chord; `loop`, loop-based pop (loopSpec()); `homophonic`, slow chorale-like pieces of
 * sustained instruments or piano (homophonic.ts), for the tempo; `ballad`, drumless pop loops of
 * held or arpeggiated chords and bass at slow and mid tempi (balladSpec()), for the tempo's level;
 * `groove`, drummed pop loops whose drums and bass play other grooves (grooves.ts), half of them
 * rendered with the sound font's reverb and chorus (decision 0186), for the tempo's level.
 */
export const GENERATORS = ['song', 'loop', 'homophonic', 'ballad', 'groove'] as const;
export type Generator = (typeof GENERATORS)[number];

export const PLAN: Array<{ split: Split; font: SoundFontName; seedBase: number; count: number; generator: Generator }> = [
  { split: 'tuning', font: 'fluidr3', seedBase: 1_000, count: 192, generator: 'song' },
  { split: 'tuning', font: 'timgm6mb', seedBase: 2_000, count: 192, generator: 'song' },
  { split: 'tuning', font: 'csound', seedBase: 3_000, count: 192, generator: 'song' },
  { split: 'tuning', font: 'opl3', seedBase: 4_000, count: 192, generator: 'song' },
  { split: 'validation', font: 'musescore', seedBase: 9_000, count: 72, generator: 'song' },
  { split: 'tuning', font: 'fluidr3', seedBase: 5_000, count: 72, generator: 'loop' },
  { split: 'tuning', font: 'timgm6mb', seedBase: 6_000, count: 72, generator: 'loop' },
  { split: 'tuning', font: 'csound', seedBase: 7_000, count: 72, generator: 'loop' },
  { split: 'tuning', font: 'opl3', seedBase: 8_000, count: 72, generator: 'loop' },
  { split: 'validation', font: 'musescore', seedBase: 9_500, count: 48, generator: 'loop' },
  { split: 'tuning', font: 'fluidr3', seedBase: 10_000, count: 48, generator: 'homophonic' },
  { split: 'tuning', font: 'timgm6mb', seedBase: 11_000, count: 48, generator: 'homophonic' },
  { split: 'tuning', font: 'csound', seedBase: 12_000, count: 48, generator: 'homophonic' },
  { split: 'tuning', font: 'opl3', seedBase: 13_000, count: 48, generator: 'homophonic' },
  { split: 'tuning', font: 'fluidr3', seedBase: 14_000, count: 32, generator: 'ballad' },
  { split: 'tuning', font: 'timgm6mb', seedBase: 15_000, count: 32, generator: 'ballad' },
  { split: 'tuning', font: 'csound', seedBase: 16_000, count: 32, generator: 'ballad' },
  { split: 'tuning', font: 'opl3', seedBase: 17_000, count: 32, generator: 'ballad' },
  { split: 'tuning', font: 'fluidr3', seedBase: 18_000, count: 48, generator: 'groove' },
  { split: 'tuning', font: 'timgm6mb', seedBase: 19_000, count: 48, generator: 'groove' },
  { split: 'tuning', font: 'csound', seedBase: 20_000, count: 48, generator: 'groove' },
  { split: 'tuning', font: 'opl3', seedBase: 21_000, count: 48, generator: 'groove' },
];

const SPEECH = [
  'Good evening and welcome back. This next one was recorded live last summer.',
  'You are listening to the late show. Here is a track from the new album.',
  'Thanks for the requests. Coming up right now, something a little different.',
  'This is take number three. Ready when you are, one, two, three, four.',
];

export interface Piece {
  id: string;
  split: Split;
  generator: Generator;
  font: SoundFontName;
  degradation: Degradation;
  /** Tuning off A440 (cents; 0 unless the degradation detunes). */
  tuningCents: number;
  /** The spoken intro, if any. */
  speech: string | null;
  spec: SongSpec;
  /** How a replayed tuning piece is played (replayed()), and each channel's settings for it. */
  replaying?: Replaying;
  channels?: Partial<Record<number, ChannelSettings>>;
  truth: { tonic: number; mode: 'major' | 'minor'; bpm: number };
  /** A homophonic piece's own spec (its song is homophonicSong's, not generatedSong's). */
  homophonic?: HomophonicSpec;
  /** How a ballad's bass plays (balladBass()): a note a bar, on the first and third beats, or the song's own pattern. */
  balladBass?: BalladBass;
  /** A groove piece's drums and bass (grooves.ts). */
  groove?: GrooveSpec;
  /** Rendered with the sound font's reverb and chorus (the others are dry). */
  effects?: boolean;
  /** Its drums alone, every other part left out (drumsAlone()). */
  drumsAlone?: true;
}

/** The tuning split's pieces of `generators`, as written. */
export const tuningCorpus = (generators: readonly Generator[]): Piece[] => corpus(['tuning'], generators);

/** Every piece of `splits` made by `generators` (the song generator's alone unless asked), in a fixed order. */
export function corpus(splits: readonly Split[] = SPLITS, generators: readonly Generator[] = ['song']): Piece[] {
  return PLAN.filter((group) => splits.includes(group.split) && generators.includes(group.generator)).flatMap((group) =>
    Array.from({ length: group.count }, (_, i) => piece(group.split, group.font, group.seedBase + i, i, group.generator)),
  );
}

function piece(split: Split, font: SoundFontName, seed: number, index: number, generator: Generator): Piece {
  const random = seededRandom(seed);
  const key = index % 24;
  const fixed = { tonic: key % 12, mode: key < 12 ? ('major' as const) : ('minor' as const) };
  const homophonic = generator === 'homophonic' ? homophonicSpec(seed, index, PIECE_SECONDS, fixed) : undefined;
  const spec =
    generator === 'loop'
      ? loopSpec(random, fixed)
      : generator === 'ballad'
        ? balladSpec(random, fixed)
        : generator === 'groove'
          ? grooveSpec(random, fixed)
          : randomSongSpec(random, PIECE_SECONDS, homophonic ? { ...fixed, bpm: homophonic.bpm, drums: null } : fixed);
  const degradation: Degradation =
    generator === 'ballad' || generator === 'groove'
      ? BALLAD_DEGRADATIONS[index % BALLAD_DEGRADATIONS.length]!
      : DEGRADATIONS[index % DEGRADATIONS.length]!;
  const detuned = degradation === 'tuning' || degradation === 'all';
  const cents = detuned ? Math.round((random() < 0.5 ? -1 : 1) * (10 + random() * 30)) : 0;
  const spoken = degradation === 'speech' || degradation === 'all';
  return {
    id: `${split}-${font}-${seed}`,
    split,
    generator,
    font,
    degradation,
    tuningCents: cents,
    speech: spoken ? SPEECH[seed % SPEECH.length]! : null,
    spec,
    truth: { tonic: spec.tonic, mode: spec.mode, bpm: spec.bpm },
    ...(homophonic ? { homophonic } : {}),
    ...(generator === 'ballad' ? { balladBass: BALLAD_BASS[Math.floor(random() * BALLAD_BASS.length)]! } : {}),
    ...(generator === 'groove'
      ? {
          groove: {
            groove: GROOVE_NAMES[Math.floor(random() * GROOVE_NAMES.length)]!,
            bass: BASS_FIGURE_NAMES[Math.floor(random() * BASS_FIGURE_NAMES.length)]!,
            crashes: random() < 0.5,
          },
          effects: index % 2 === 1,
        }
      : {}),
  };
}

type Loop = Array<[number, ChordQuality]>;
/**
 * Pop chord loops, one chord a bar, [root above the tonic, quality]: in major I–vi–IV–V, I–V–vi–IV,
 * vi–IV–I–V, I–IV–vi–V, IV–I–V–vi, I–IV–V–IV, I–ii–IV–V; in minor i–VI–III–VII, i–iv–VII–III,
 * i–VII–VI–VII, VI–VII–i–i, i–III–VII–VI, i–iv–v–i, and with the major V i–VI–iv–V. Several share
 * their chords with a loop of the relative key: only the order, which chord the loop starts on,
 * the melody and the ending tell them apart.
 */
export const LOOPS: Record<'major' | 'minor', Loop[]> = {
  major: [
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
      [9, 'm'],
      [5, 'M'],
      [0, 'M'],
      [7, 'M'],
    ],
    [
      [0, 'M'],
      [5, 'M'],
      [9, 'm'],
      [7, 'M'],
    ],
    [
      [5, 'M'],
      [0, 'M'],
      [7, 'M'],
      [9, 'm'],
    ],
    [
      [0, 'M'],
      [5, 'M'],
      [7, 'M'],
      [5, 'M'],
    ],
    [
      [0, 'M'],
      [2, 'm'],
      [5, 'M'],
      [7, 'M'],
    ],
  ],
  minor: [
    [
      [0, 'm'],
      [8, 'M'],
      [3, 'M'],
      [10, 'M'],
    ],
    [
      [0, 'm'],
      [5, 'm'],
      [10, 'M'],
      [3, 'M'],
    ],
    [
      [0, 'm'],
      [10, 'M'],
      [8, 'M'],
      [10, 'M'],
    ],
    [
      [8, 'M'],
      [10, 'M'],
      [0, 'm'],
      [0, 'm'],
    ],
    [
      [0, 'm'],
      [3, 'M'],
      [10, 'M'],
      [8, 'M'],
    ],
    [
      [0, 'm'],
      [5, 'm'],
      [7, 'm'],
      [0, 'm'],
    ],
    [
      [0, 'm'],
      [8, 'M'],
      [5, 'm'],
      [7, 'M'],
    ],
  ],
};

/**
 * A loop-based pop piece: drums (mostly), bass on the chord roots, chords always, a melody half the
 * time, one loop of LOOPS over and over at 70–160 BPM; it ends on the tonic chord, after whole
 * loops, or cut off mid-loop, a third of the pieces each.
 */
function loopSpec(random: () => number, fixed: Pick<SongSpec, 'tonic' | 'mode'>): SongSpec {
  const bpm = Math.round(70 + random() * 90);
  const loops = LOOPS[fixed.mode];
  const chordLoop = loops[Math.floor(random() * loops.length)]!;
  const base = randomSongSpec(random, PIECE_SECONDS, { ...fixed, bpm });
  const ending = Math.floor(random() * 3);
  const whole = Math.max(2, Math.round((PIECE_SECONDS * bpm) / 240 / 4)) * 4;
  const bars = ending === 2 ? whole + 1 + Math.floor(random() * 3) : whole;
  const uses = chordLoop.some(([root, quality]) => root === 7 && quality === 'M') && fixed.mode === 'minor';
  return {
    ...base,
    minorForm: uses ? 'harmonic' : 'natural',
    drums: random() < 0.85 ? (['rock', 'four', 'ride'] as const)[Math.floor(random() * 3)]! : null,
    chords: base.chords ?? { style: 'sustain', lowest: 55, inversion: 0, program: 0 },
    bass: base.bass ?? { lowest: 33, program: 33 },
    melody: random() < 0.5 ? base.melody : null,
    bars,
    chordLoop,
    endOnTonic: ending === 0,
  };
}

/** Chord programs of the ballads: piano, electric pianos, strings, drawbar organ (all the tuning generator's own). */
const BALLAD_CHORDS = [0, 4, 5, 48, 16];

/**
 * A drumless pop ballad: one loop of LOOPS over and over at 56–112 BPM, chords held a bar (two
 * thirds of the pieces) or arpeggiated, bass on the roots, a melody half the time; nothing marks
 * the beat but the bass and the chord changes, so the tempo's level must come from them.
 */
function balladSpec(random: () => number, fixed: Pick<SongSpec, 'tonic' | 'mode'>): SongSpec {
  const bpm = Math.round(56 + random() * 56);
  const loop = loopSpec(random, fixed);
  const style = random() < 2 / 3 ? ('sustain' as const) : ('arpeggio' as const);
  const program = BALLAD_CHORDS[Math.floor(random() * BALLAD_CHORDS.length)]!;
  const chords = { ...(loop.chords ?? { lowest: 55, inversion: 0 as const }), style, program };
  const bars = Math.max(4, Math.round((PIECE_SECONDS * bpm) / 240 / 4)) * 4;
  return { ...loop, bpm, bars, drums: null, chords, bass: loop.bass ?? { lowest: 33, program: 33 }, endOnTonic: true };
}

/**
 * A groove piece: a loop of LOOPS at 64–180 BPM, straight, chords and a melody as loopSpec() plays
 * them; its drums and bass are the groove's (grooves.ts withGroove(), applied in songOf()).
 */
function grooveSpec(random: () => number, fixed: Pick<SongSpec, 'tonic' | 'mode'>): SongSpec {
  const bpm = Math.round(64 + random() * 116);
  const loop = loopSpec(random, fixed);
  const bars = Math.max(4, Math.round((PIECE_SECONDS * bpm) / 240 / 4)) * 4;
  return { ...loop, bpm, bars, swing: false, drums: null, bass: loop.bass ?? { lowest: 33, program: 33 }, endOnTonic: true };
}

export const BALLAD_BASS = ['whole', 'half', 'pattern'] as const;
export type BalladBass = (typeof BALLAD_BASS)[number];
const BASS_CHANNEL = 1;

/**
 * A ballad's bass as a ballad plays it: `whole`, the bar's first note held through the bar; `half`,
 * the notes on the first and third beats held two beats; `pattern`, the song's own four a bar.
 */
export function balladBass(song: MidiSong, how: BalladBass): MidiSong {
  if (how === 'pattern') return song;
  const every = how === 'whole' ? 4 : 2;
  const notes = song.notes.flatMap((note) => {
    if (note.channel !== BASS_CHANNEL) return [note];
    const beat = Math.round(note.start);
    const onBeat = Math.abs(note.start - beat) < 0.2 && beat % every === 0;
    return onBeat ? [{ ...note, length: every - 0.1 }] : [];
  });
  return { ...song, notes };
}

/** A tuning piece as broadcast (band-limited, normalised, limited, noise, MP3): its own id, no spoken intro or fades. */
export function broadcast(piece: Piece): Piece {
  if (piece.split !== 'tuning') throw new Error('only tuning pieces are broadcast');
  return { ...piece, id: `${piece.id}-broadcast`, degradation: 'broadcast', speech: null };
}

/**
 * Other playings of a tuning piece, for learning what must not hang on one sound font's mix and
 * touch (decision 0146): `remixed`, each part at its own gain (−15 to +4 dB), attack (×1–8) and
 * release (×½–8); `revoiced`, also each part's velocity curve (127 · (v / 127)^γ, γ 0.4–2.5).
 */
export const REPLAYINGS = ['remixed', 'revoiced'] as const;
export type Replaying = (typeof REPLAYINGS)[number];

/** A tuning piece played another way (REPLAYINGS); its own seed, so the same piece plays alike every run. */
export function replayed(piece: Piece, how: Replaying): Piece {
  if (piece.split !== 'tuning') throw new Error('only tuning pieces are replayed');
  const random = seededRandom(piece.spec.seed ^ 0x5f3759df);
  const between = (low: number, high: number) => low + random() * (high - low);
  const gain = () => 100 * 10 ** (between(-15, 4) / 40);
  const channels: Partial<Record<number, ChannelSettings>> = {};
  for (const channel of [0, 1, 2])
    channels[channel] = { volume: gain(), attackCents: between(0, 3600), releaseCents: between(-1200, 3600) };
  channels[9] = { volume: gain() };
  if (how === 'revoiced') for (const channel of [0, 1, 2, 9]) channels[channel]!.velocityCurve = 2 ** between(-1.3, 1.3);
  return { ...piece, id: `${piece.id}-${how}`, replaying: how, channels };
}

/** A drummed tuning piece's drums alone (an intro, a bed, a break: no harmony to read), under its own id. */
export function drumsAlone(piece: Piece): Piece {
  if (piece.split !== 'tuning') throw new Error('only tuning pieces play their drums alone');
  if (!hasDrums(piece)) throw new Error(`${piece.id} has no drums`);
  return { ...piece, id: `${piece.id}-drums-alone`, drumsAlone: true };
}

/** The MIDI song of a piece (its tuning, and how it is replayed, included). */
export function songOf(piece: Piece): MidiSong {
  const song = piece.homophonic
    ? homophonicSong(piece.homophonic)
    : piece.balladBass
      ? balladBass(generatedSong(piece.spec), piece.balladBass)
      : piece.groove
        ? withGroove(generatedSong(piece.spec), piece.groove, piece.spec.seed)
        : generatedSong(piece.spec);
  const notes = piece.drumsAlone ? song.notes.filter((note) => note.channel === DRUM_CHANNEL) : song.notes;
  return { ...song, notes, tuningCents: piece.tuningCents, ...(piece.channels ? { channels: piece.channels } : {}) };
}

/** Whether a piece is encoded as MP3 (128 kbit/s). */
export const isMp3 = (piece: Piece) => piece.degradation === 'mp3' || piece.degradation === 'all' || piece.degradation === 'broadcast';
export const isBroadcast = (piece: Piece) => piece.degradation === 'broadcast';
export const hasNoise = (piece: Piece) => piece.degradation === 'noise' || piece.degradation === 'all';
export const hasFades = (piece: Piece) => piece.degradation === 'fades' || piece.degradation === 'all';
export const hasDrums = (piece: Piece) => piece.groove !== undefined || piece.spec.drums !== null;
