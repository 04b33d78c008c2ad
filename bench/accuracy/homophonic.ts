/**
 * bench/accuracy/homophonic.ts: slow homophonic pieces for the tuning corpus, the kind of music
 * the tuning generator's pop loops never play: four voices moving together, a chord a beat
 * (now and then held for two, or split into eighths by a passing note; in half the pieces most
 * moves are, decision 0192), phrases of two bars that end on a held cadence chord, legato, no drums,
 * at a steady tempo (no rubato, no fermatas: Writing has them for homophonic-variants.ts).
 * Played by sustained instruments (organ, strings, flute over strings) or piano, with programs the
 * tuning generator already plays, so the tuning still plays no program of the evaluation's.
 */
import { seededRandom, type MidiNote, type MidiSong } from '@catalog/testing';

/** Bump when what a homophonic piece plays changes for the same spec (weight files' provenance). */
export const HOMOPHONIC_VERSION = 3;

export interface HomophonicSpec {
  tonic: number;
  mode: 'major' | 'minor';
  /** Quarter notes a minute: the beat. */
  bpm: number;
  bars: number;
  ensemble: Ensemble;
  /** Seed of the harmony's, the voicing's and the humanising's choices. */
  seed: number;
  /** How it is written beyond the plain texture: in the tuning corpus `busy` alone, on half the pieces (0192). */
  writing?: Writing;
}

/**
 * Ways written chorales differ from the plain texture, for weighing the tempo on each
 * (homophonic-variants.ts). Absent, a piece is written as HOMOPHONIC_VERSION 2 wrote it.
 */
export interface Writing {
  /** Three beats a bar, phrases of four bars whose cadence chord is held a bar from a downbeat. */
  triple?: true;
  /** A beat's upbeat (the dominant) before the first bar. */
  pickup?: true;
  /** Eighth-note motion: the chance a voice that moves on a beat moves in eighths (a passing or neighbour note). */
  busy?: number;
  /** Each cadence chord held a beat longer, as a fermata is sung: the beat grid shifts at every cadence. */
  fermata?: true;
  /** A piece in minor ends on the major tonic chord (a Picardy third), as most minor chorales do. */
  picardy?: true;
  /** Every other inner phrase in the dominant (major) or the relative major (minor), as chorales' middle cadences are. */
  modulating?: true;
  /** The chance a chord before a major or minor chord other than I becomes that chord's dominant (a secondary dominant). */
  secondary?: number;
}

/** Programs of the soprano, the alto and tenor, and the bass (channels 2, 0 and 1, as the tuning generator's parts). */
export const ENSEMBLE_PROGRAMS = {
  organ: [19, 19, 19],
  drawbars: [16, 16, 16],
  strings: [40, 48, 48],
  'flute and strings': [73, 48, 48],
  piano: [0, 0, 0],
  'electric piano': [4, 4, 4],
} as const;
export type Ensemble = keyof typeof ENSEMBLE_PROGRAMS;
export const ENSEMBLES = Object.keys(ENSEMBLE_PROGRAMS) as Ensemble[];

const CHANNEL = { soprano: 2, inner: 0, bass: 1 } as const;
type Quality = 'M' | 'm' | 'd';
/** Diatonic chords by degree: root above the tonic and quality (minor harmonic: the major V). */
const CHORDS: Record<'major' | 'minor', Array<[number, Quality]>> = {
  major: [
    [0, 'M'],
    [2, 'm'],
    [4, 'm'],
    [5, 'M'],
    [7, 'M'],
    [9, 'm'],
    [11, 'd'],
  ],
  minor: [
    [0, 'm'],
    [2, 'd'],
    [3, 'M'],
    [5, 'm'],
    [7, 'M'],
    [8, 'M'],
    [10, 'M'],
  ],
};
/** Where each degree (0 = I) may go next: functional harmony, roughly. */
const NEXT: number[][] = [[3, 4, 5, 1, 0], [4, 6], [5, 3], [4, 0, 1], [0, 5, 0], [1, 3], [0]];
const TRIADS: Record<Quality, number[]> = { M: [0, 4, 7], m: [0, 3, 7], d: [0, 3, 6] };
const RANGES = { bass: [38, 55], tenor: [48, 64], alto: [55, 70], soprano: [60, 77] } as const;

/** A spec of about `seconds` seconds at 46–112 BPM, its ensemble picked in turn by `index`. */
export function homophonicSpec(
  seed: number,
  index: number,
  seconds: number,
  key: { tonic: number; mode: 'major' | 'minor' },
): HomophonicSpec {
  const random = seededRandom(seed);
  const bpm = Math.round(46 + random() * 66);
  // Since version 3 half the pieces move in eighths, as written chorales do: homophonic-variants.ts
  // measured twice the tempo read on them more often the more they move.
  const writing = random() < 0.5 ? { writing: { busy: Math.round(20 + random() * 60) / 100 } } : {};
  return {
    ...key,
    bpm,
    bars: Math.max(6, Math.round((seconds * bpm) / 240)),
    ensemble: ENSEMBLES[index % ENSEMBLES.length]!,
    seed,
    ...writing,
  };
}

/** The MIDI song of a spec: soprano on channel 2, alto and tenor on 0, bass on 1. */
export function homophonicSong(spec: HomophonicSpec): MidiSong {
  const random = seededRandom(spec.seed ^ 0x2545f491);
  const writing = spec.writing ?? {};
  const chords = harmony(random, spec.bars, writing);
  const voices = { soprano: 67, alto: 62, tenor: 55, bass: 45 };
  const notes: MidiNote[] = [];
  const sounding: Partial<Record<keyof typeof voices, MidiNote>> = {};
  const lastPhrase = chords.at(-1)!.phrase;
  chords.forEach(({ degree, start, length, phrase }, i) => {
    const key = writing.modulating && phrase % 2 === 1 && phrase < lastPhrase ? closelyRelated(spec) : spec;
    const [plainRoot, written] = CHORDS[key.mode][degree]!;
    const target = chords[i + 1] && chords[i + 1]!.phrase === phrase ? CHORDS[key.mode][chords[i + 1]!.degree]! : null;
    const tonicised =
      writing.secondary !== undefined && i > 0 && target && target[0] !== 0 && target[1] !== 'd' && random() < writing.secondary;
    const root = tonicised ? (target[0] + 7) % 12 : plainRoot;
    const quality = (writing.picardy && i === chords.length - 1) || tonicised ? 'M' : written;
    const tones = TRIADS[quality].map((interval) => (key.tonic + root + interval) % 12);
    const bassTone = i > 0 && i < chords.length - 1 && random() < 0.25 ? tones[1]! : tones[0]!;
    const bass = nearestOf([bassTone], voices.bass, RANGES.bass);
    const next = { bass, ...voicing(tones, bass, voices) };
    for (const voice of ['soprano', 'alto', 'tenor', 'bass'] as const) {
      const channel = voice === 'soprano' ? CHANNEL.soprano : voice === 'bass' ? CHANNEL.bass : CHANNEL.inner;
      const held = sounding[voice];
      // Inner voices often tie a common tone over, as an organist or a section would.
      if (held && held.pitch === next[voice] && voice !== 'soprano' && random() < 0.5) {
        held.length += length;
      } else {
        const leap = Math.abs(next[voice] - voices[voice]);
        const passing =
          length === 1 && i > 0 && (writing.busy !== undefined ? leap >= 1 && random() < writing.busy : leap >= 3 && random() < 0.5);
        const velocity = 68 + Math.floor(random() * 10);
        if (passing) {
          // The chord's note, then a neighbour note on the second eighth (the voice's eighth-note motion).
          const neighbour = scaleStep(next[voice], next[voice] > voices[voice] ? 1 : -1, key);
          notes.push(
            { start, length: 0.48, pitch: next[voice], velocity, channel },
            { start: start + 0.5, length: 0.48, pitch: neighbour, velocity, channel },
          );
          sounding[voice] = undefined;
        } else {
          const note = { start, length: length - 0.04, pitch: next[voice], velocity, channel };
          notes.push(note);
          sounding[voice] = note;
        }
      }
      voices[voice] = next[voice];
    }
  });
  return {
    bpm: spec.bpm,
    notes: notes.map((note) => ({ ...note, start: Math.max(0, note.start + (random() - 0.5) * 0.02) })),
    programs: {
      [CHANNEL.soprano]: ENSEMBLE_PROGRAMS[spec.ensemble][0],
      [CHANNEL.inner]: ENSEMBLE_PROGRAMS[spec.ensemble][1],
      [CHANNEL.bass]: ENSEMBLE_PROGRAMS[spec.ensemble][2],
    },
  };
}

/**
 * Chords of `bars` bars in phrases of two bars: a chord a beat, the cadence (V–I, IV–I or to V) held
 * two beats, the last on I. Written `triple`, phrases of four bars of three, the cadence chord held
 * three; with a `pickup`, a dominant a beat before; with a `fermata`, every cadence chord a beat longer.
 */
function harmony(
  random: () => number,
  bars: number,
  writing: Writing,
): Array<{ degree: number; start: number; length: number; phrase: number }> {
  const chords: Array<{ degree: number; start: number; length: number; phrase: number }> = [];
  const [phraseBeats, cadenceAt, held] = writing.triple ? [12, 9, 3] : [8, 6, 2];
  const beats = bars * (writing.triple ? 3 : 4);
  const offset = writing.pickup ? 1 : 0;
  if (writing.pickup) chords.push({ degree: 4, start: 0, length: 1, phrase: 0 });
  let degree = 0;
  for (let phrase = 0; phrase * phraseBeats < beats; phrase++) {
    const start = offset + phrase * (phraseBeats + (writing.fermata ? 1 : 0));
    const last = (phrase + 1) * phraseBeats >= beats;
    let beat = 0;
    while (beat < cadenceAt - 1) {
      const length = beat < cadenceAt - 2 && random() < 0.15 ? 2 : 1;
      chords.push({ degree, start: start + beat, length, phrase });
      beat += length;
      const options = NEXT[degree]!;
      degree = options[Math.floor(random() * options.length)]!;
    }
    const cadence = last ? [4, 0] : random() < 0.3 ? [3, 4] : random() < 0.5 ? [3, 0] : [4, 0];
    if (beat === cadenceAt - 1) chords.push({ degree: cadence[0]!, start: start + cadenceAt - 1, length: 1, phrase });
    chords.push({ degree: cadence[1]!, start: start + cadenceAt, length: held + (writing.fermata ? 1 : 0), phrase });
    degree = cadence[1] === 4 ? 0 : NEXT[0]![Math.floor(random() * 3)]!;
  }
  return chords;
}

/** The closely related key a chorale's middle phrases go to: the dominant of a major key, the relative major of a minor one. */
const closelyRelated = (key: { tonic: number; mode: 'major' | 'minor' }) =>
  key.mode === 'major' ? { tonic: (key.tonic + 7) % 12, mode: 'major' as const } : { tonic: (key.tonic + 3) % 12, mode: 'major' as const };

/** The key's scale (minor harmonic, as CHORDS), in semitones above the tonic. */
const SCALES = { major: [0, 2, 4, 5, 7, 9, 11], minor: [0, 2, 3, 5, 7, 8, 11] } as const;

/** The next pitch of the key's scale above (1) or below (−1) `pitch` (decision 0190; before, a whole tone, in the key or not). */
function scaleStep(pitch: number, direction: 1 | -1, key: { tonic: number; mode: 'major' | 'minor' }): number {
  let step = pitch + direction;
  while (!(SCALES[key.mode] as readonly number[]).includes((((step - key.tonic) % 12) + 12) % 12)) step += direction;
  return step;
}

/**
 * The upper voices of a chord over its bass, as four-part writing spaces them (decision 0190): each
 * on a chord tone in its range, tenor below alto below soprano, neighbours at most an octave apart,
 * the four voices sounding every tone of the triad; of those, the one that moves the voices least
 * from `from` (the first on a tie).
 */
function voicing(tones: number[], bass: number, from: { tenor: number; alto: number; soprano: number }) {
  const pitches = (range: readonly [number, number]) =>
    Array.from({ length: range[1] - range[0] + 1 }, (_, i) => range[0] + i).filter((pitch) => tones.includes(pitch % 12));
  let best: { tenor: number; alto: number; soprano: number } | null = null;
  let bestCost = Infinity;
  for (const tenor of pitches(RANGES.tenor).filter((pitch) => pitch > bass))
    for (const alto of pitches(RANGES.alto).filter((pitch) => pitch > tenor && pitch - tenor <= 12))
      for (const soprano of pitches(RANGES.soprano).filter((pitch) => pitch > alto && pitch - alto <= 12)) {
        if (!tones.every((tone) => [bass, tenor, alto, soprano].some((pitch) => pitch % 12 === tone))) continue;
        const cost = Math.abs(tenor - from.tenor) + Math.abs(alto - from.alto) + Math.abs(soprano - from.soprano);
        if (cost < bestCost) {
          best = { tenor, alto, soprano };
          bestCost = cost;
        }
      }
  if (!best) throw new Error(`no voicing of ${tones.join(', ')} over ${bass}`);
  return best;
}

/**
 * The pitch of one of `pcs` nearest `from` within `range` (every range spans an octave, so there is
 * one). Before HOMOPHONIC_VERSION 2 the search started from the range's lowest pitch whatever its
 * pitch class, so a voice that reached it stayed there, off the chord, and each upper voice took
 * its nearest chord tone alone, so most chords sounded their root in three octaves (decision 0190).
 */
function nearestOf(pcs: number[], from: number, range: readonly [number, number]): number {
  let best: number | null = null;
  for (let pitch = range[0]; pitch <= range[1]; pitch++)
    if (pcs.includes(pitch % 12) && (best === null || Math.abs(pitch - from) < Math.abs(best - from))) best = pitch;
  if (best === null) throw new Error(`no pitch of ${pcs.join(', ')} in ${range.join('–')}`);
  return best;
}
