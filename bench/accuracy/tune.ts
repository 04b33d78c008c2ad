/**
 * bench/accuracy/tune.ts: what tuning the key and tempo analyzers may read: the tuning split only
 * (corpus(['tuning'])). Decodes each piece once as the analysis pipeline does (mono, 11 025 Hz;
 * cached beside it), then scores analyzer settings in this process, learns the key's profiles
 * (the 24-key regression of learn-profiles.ts and the mode stage of learn-mode.ts) and the tempo's
 * octave weights (learn-octave.ts; from each piece as written and replayed with other mixes and
 * touch, corpus.ts replayed()). Learned on the other sound fonts and scored on each too, to see
 * whether they carry over. `weights` learns both on the whole tuning split and writes the files
 * the analyzers read (weight-files.ts: named values and their provenance); that one command
 * regenerates what is committed:
 *   node --conditions=source --import tsx bench/accuracy/tune.ts key|tempo|weights
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { KeyAnalyzer, KEY_SETTINGS, TempoAnalyzer, type KeyProfiles, type KeySettings } from '@catalog/analysis/analyzers';
import { corpus, REPLAYINGS, replayed, type Piece } from './corpus.js';
import { learnModeWeights, modeProfilesOf } from './learn-mode.js';
import { learnWeights, profilesOf } from './learn-profiles.js';
import { learnOctaveWeights, octaveLabel, type OctaveExample } from './learn-octave.js';
import { acc1, acc2, mirexScore, parseKey } from './metrics.js';
import { renderPieces } from './render.js';
import { repoRoot } from '../support/processes.js';
import {
  KEY_ABOUT,
  KEY_WEIGHTS,
  OCTAVE_ABOUT,
  OCTAVE_WEIGHTS_FILE,
  provenance,
  writeKeyWeights,
  writeOctaveWeights,
} from './weight-files.js';

const RATE = 11_025;
const what = process.argv[2] ?? 'key';
if (!['key', 'tempo', 'weights'].includes(what)) throw new Error(`tune.ts key|tempo|weights, not ${what}`);
const written = corpus(['tuning']);
/** The tempo learns from each piece as written and replayed (decision 0146); the key from them as written. */
const pieces = what !== 'key' ? [...written, ...REPLAYINGS.flatMap((how) => written.map((piece) => replayed(piece, how)))] : written;
if (pieces.some((piece) => piece.split !== 'tuning')) throw new Error('tuning reads the tuning split only');
const files = await renderPieces(pieces, (line) => process.stderr.write(`${line}\n`));

function decoded(file: string): Float32Array {
  const raw = `${file}.low.f32`;
  if (!existsSync(raw)) {
    execFileSync('ffmpeg', [
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-i',
      file,
      '-af',
      `aformat=sample_fmts=flt:channel_layouts=mono,aresample=${RATE}`,
      '-f',
      'f32le',
      `${raw}.part`,
    ]);
    renameSync(`${raw}.part`, raw);
  }
  const bytes = readFileSync(raw);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}
const audio = new Map(pieces.map((piece) => [piece.id, decoded(files.get(piece.id)!)]));

function keyOf(piece: Piece, settings: KeySettings): KeyAnalyzer {
  const analyzer = new KeyAnalyzer(RATE, settings);
  const samples = audio.get(piece.id)!;
  analyzer.write(samples, samples.length);
  return analyzer;
}

export function scoreKey(settings: KeySettings, subset = pieces): { mirex: number; exact: number } {
  let mirex = 0,
    exact = 0;
  for (const piece of subset) {
    const score = mirexScore(piece.truth, parseKey(keyOf(piece, settings).result().key));
    mirex += score;
    exact += score === 1 ? 1 : 0;
  }
  return { mirex: mirex / subset.length, exact: exact / subset.length };
}

/** Profiles and register weights learned on `subset` (learn-profiles.ts). */
export function learnProfiles(subset: Piece[], settings = KEY_SETTINGS): KeyProfiles {
  const examples = subset.map((piece) => ({ chroma: keyOf(piece, settings).features(), tonic: piece.truth.tonic, mode: piece.truth.mode }));
  return { ...profilesOf(learnWeights(examples)), mode: modeProfilesOf(learnModeWeights(examples)) };
}

function tempoOf(piece: Piece): TempoAnalyzer {
  const analyzer = new TempoAnalyzer(RATE);
  const samples = audio.get(piece.id)!;
  analyzer.write(samples, samples.length);
  return analyzer;
}

function scoreTempo(subset = pieces): { acc1: number; acc2: number; misses: string[] } {
  let a1 = 0,
    a2 = 0;
  const misses: string[] = [];
  for (const piece of subset) {
    const { bpm, confidence } = tempoOf(piece).result();
    if (acc1(piece.truth.bpm, bpm)) a1++;
    else misses.push(`${piece.id} ${piece.degradation} drums=${piece.spec.drums} truth ${piece.truth.bpm} got ${bpm} (${confidence})`);
    if (acc2(piece.truth.bpm, bpm)) a2++;
  }
  return { acc1: a1 / subset.length, acc2: a2 / subset.length, misses };
}

/**
 * The octave examples of each piece: of each pair of levels the analyzer chooses between
 * (octaveEvidences()), fast when the true tempo is the fast level, slow when it is the slow level
 * or half it (the choice then goes on to the next pair); none where the truth is neither.
 */
function octaveExamples(subset: Piece[]): Array<OctaveExample & { piece: Piece }> {
  return subset.flatMap((piece) =>
    tempoOf(piece)
      .octaveEvidences()
      .flatMap((evidence) => {
        const fast = octaveLabel(piece.truth.bpm, evidence.slow);
        return fast === null ? [] : [{ piece, features: evidence.features, fast }];
      }),
  );
}

const FONTS = [...new Set(pieces.map((piece) => piece.font))];

/** Octave choices wrong with weights learned on the other sound fonts, on each (one fold a font), and the weights learned on all. */
function learnOctave(): number[] {
  const examples = octaveExamples(pieces);
  const wrongWith = (weights: number[]) => (e: (typeof examples)[number]) =>
    (e.features.reduce((sum, v, i) => sum + v * weights[i]!, 0) >= 0 ? 1 : 0) !== e.fast;
  const missed = FONTS.flatMap((font) => {
    const weights = learnOctaveWeights(examples.filter((e) => e.piece.font !== font));
    return examples.filter((e) => e.piece.font === font).filter(wrongWith(weights));
  });
  const count = <T>(values: T[], of: (e: (typeof examples)[number]) => T) => values.map((v) => missed.filter((e) => of(e) === v).length);
  const folds = count(FONTS, (e) => e.piece.font);
  const playings = ['written', ...REPLAYINGS] as const;
  const byPlaying = count([...playings], (e) => e.piece.replaying ?? 'written');
  console.log('wrong across fonts by playing', JSON.stringify(Object.fromEntries(playings.map((p, i) => [p, byPlaying[i]]))));
  const weights = learnOctaveWeights(examples);
  console.log(
    `${examples.length} octave choices; wrong across fonts ${folds.join(' + ')}; on all, learned on all ${examples.filter(wrongWith(weights)).length}`,
  );
  console.log('octave weights learned on the whole tuning split', JSON.stringify(weights));
  return weights;
}

const byFont = (font: string) => pieces.filter((piece) => piece.font === font);
/** Mean over the folds of each sound font: profiles learned on the other fonts, scored on it. */
function crossValidated(settings: KeySettings): string {
  const folds = FONTS.map((font) => {
    const profiles = learnProfiles(
      pieces.filter((piece) => piece.font !== font),
      settings,
    );
    return scoreKey({ ...settings, profiles }, byFont(font));
  });
  const mean = (pick: (fold: { mirex: number; exact: number }) => number) =>
    (folds.reduce((sum, fold) => sum + pick(fold), 0) / folds.length).toFixed(3);
  return `mirex ${mean((fold) => fold.mirex)} exact ${mean((fold) => fold.exact)}`;
}
if (what === 'weights') {
  const source = provenance();
  writeKeyWeights(repoRoot, learnProfiles(written), KEY_ABOUT, source);
  writeOctaveWeights(repoRoot, learnOctave(), OCTAVE_ABOUT, source);
  console.log(`wrote ${KEY_WEIGHTS} and ${OCTAVE_WEIGHTS_FILE}`);
} else if (what === 'key') {
  console.log('current settings', scoreKey(KEY_SETTINGS));
  const grid = JSON.parse(process.argv[3] ?? '[{}]') as Array<Partial<KeySettings>>;
  for (const change of grid) console.log(JSON.stringify(change), crossValidated({ ...KEY_SETTINGS, ...change }));
  const profiles = learnProfiles(pieces);
  console.log('profiles learned on the whole tuning split', JSON.stringify(profiles));
  console.log('learned on the whole tuning split, scored on it', scoreKey({ ...KEY_SETTINGS, profiles }));
} else {
  console.log('as written', scoreTempo(written));
  const { acc1: a1, acc2: a2 } = scoreTempo(pieces.filter((piece) => piece.replaying));
  console.log('replayed', { acc1: a1, acc2: a2 });
  learnOctave();
}
