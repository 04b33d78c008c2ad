/**
 * bench/accuracy/tune.ts: what tuning the key and tempo analyzers may read: the tuning split only
 * (corpus(['tuning'])). Decodes each piece once as the analysis pipeline does (mono, 11 025 Hz;
 * cached beside it), then scores analyzer settings in this process, learns the key's profiles
 * (the 24-key regression of learn-profiles.ts and the mode stage of learn-mode.ts) and the tempo's
 * octave weights (learn-octave.ts; from each piece as written and replayed with other mixes and
 * touch, corpus.ts replayed()). Learned on the other sound fonts and scored on each too, to see
 * whether they carry over. `weights` learns on the whole tuning split and writes the files the
 * analyzers read (weight-files.ts: named values and their provenance): the key keeps its committed
 * profiles (today's first choice) and learns its re-rank (learn-rerank.ts, decision 0164); that one
 * command regenerates what is committed:
 *   node --conditions=source --import tsx bench/accuracy/tune.ts key|tempo|weights
 * Variants weighed: `key '[settings…]'` and TUNE_RERANK='[{"l2":…}]' (the re-rank's options);
 * `tempo '[{"l2":…},{"drop":[…]}]'` (the octave learner's, octave-variants.ts).
 */
import {
  chooseOctave,
  KeyAnalyzer,
  keyOfChroma,
  KEY_SETTINGS,
  TempoAnalyzer,
  type KeyProfiles,
  type KeySettings,
} from '@catalog/analysis/analyzers';
import { broadcast, drumsAlone, GENERATORS, hasDrums, REPLAYINGS, replayed, tuningCorpus, type Generator, type Piece } from './corpus.js';
import { learnModeWeights, modeProfilesOf } from './learn-mode.js';
import { LEARN_OPTIONS, learnWeights, profilesOf, type Register } from './learn-profiles.js';
import { learnOctaveWeights, OCTAVE_LEARN, octaveLabel, type OctaveExample, type OctaveLearnOptions } from './learn-octave.js';
import { octaveVariantLines, wrongHeldOut, wrongWith, type OctaveVariant } from './octave-variants.js';
import { learnReRank, RERANK_OPTIONS, type ReRankOptions } from './learn-rerank.js';
import { acc1, acc2, mirexScore, missKind, parseKey } from './metrics.js';
import { ANALYSIS_RATE, decodedForAnalysis, renderPieces } from './render.js';
import { tempoConfidenceLines, writingLines } from './summary.js';
import committedKey from '../../services/analysis/src/analyzers/key/key-weights.json' with { type: 'json' };
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

const what = process.argv[2] ?? 'key';
if (!['key', 'tempo', 'weights'].includes(what)) throw new Error(`tune.ts key|tempo|weights [key|tempo], not ${what}`);
/** `weights key` or `weights tempo` learns and writes that one file alone (and renders only what it reads). */
const only = what === 'weights' ? process.argv[3] : undefined;
if (only !== undefined && only !== 'key' && only !== 'tempo') throw new Error(`tune.ts weights [key|tempo], not ${only}`);
/** The key learns from the song and loop generators' pieces as written (the loop-based pop too). */
const KEY_GENERATORS = ['song', 'loop'] as const;
const keyPieces = tuningCorpus(KEY_GENERATORS);
/**
 * The tempo learns from every generator's pieces as written (decision 0186: the grooves and the
 * drumless ballads too), and replayed with other mixes and touch (decision 0146): every homophonic
 * piece and ballad, every eighth song piece (the loops and grooves are not). The broadcast
 * homophonic pieces are scored by `tune.ts tempo` but not learned from; TUNE_LEARN=song,loop,…
 * learns from those generators alone, to weigh a corpus.
 */
const TEMPO_GENERATORS = (process.env.TUNE_LEARN?.split(',') ?? GENERATORS) as readonly Generator[];
const everyNth = (n: number) => (_: Piece, i: number) => i % n === 0;
const replayedForTempo = [
  ...tuningCorpus(['homophonic']),
  ...tuningCorpus(['song']).filter(everyNth(8)),
  ...(TEMPO_GENERATORS.includes('ballad') ? tuningCorpus(['ballad']) : []),
];
const learnedForTempo = [
  ...tuningCorpus(TEMPO_GENERATORS),
  ...REPLAYINGS.flatMap((how) => replayedForTempo.map((piece) => replayed(piece, how))),
];
/** Every fourth drummed song piece and every other groove piece, drums alone: scored; learned from only with TUNE_DRUMS_ALONE=learn. */
const drumsAloneForTempo = [
  ...tuningCorpus(['song']).filter(hasDrums).filter(everyNth(4)),
  ...tuningCorpus(['groove']).filter(everyNth(2)),
].map(drumsAlone);
if (process.env.TUNE_DRUMS_ALONE === 'learn') learnedForTempo.push(...drumsAloneForTempo);
/** TUNE_OCTAVE='{"method":"newton","l2":0.0003}': the octave `tune.ts tempo` scores is learned so. */
const octaveOptions: OctaveLearnOptions = { ...OCTAVE_LEARN, ...(JSON.parse(process.env.TUNE_OCTAVE ?? '{}') as object) };
const learnOctaveAs = (examples: OctaveExample[]) => learnOctaveWeights(examples, octaveOptions);
if (what === 'weights' && (process.env.TUNE_OCTAVE || process.env.TUNE_DRUMS_ALONE))
  throw new Error('weights: unset TUNE_OCTAVE, TUNE_DRUMS_ALONE');
/** What `tune.ts tempo` scores: those, and the ballads as written and replayed, the grooves, the homophonic pieces broadcast. */
const tempoPieces =
  what === 'tempo'
    ? [
        ...new Map(
          [
            ...learnedForTempo,
            ...tuningCorpus(['ballad', 'groove']),
            ...REPLAYINGS.flatMap((how) => tuningCorpus(['ballad']).map((piece) => replayed(piece, how))),
            ...tuningCorpus(['homophonic']).map(broadcast),
            ...drumsAloneForTempo,
          ].map((piece) => [piece.id, piece]),
        ).values(),
      ]
    : learnedForTempo;
const pieces =
  what === 'key' || only === 'key'
    ? keyPieces
    : what === 'tempo' || only === 'tempo'
      ? tempoPieces
      : [...new Map([...keyPieces, ...tempoPieces].map((p) => [p.id, p])).values()];
if (pieces.some((piece) => piece.split !== 'tuning')) throw new Error('tuning reads the tuning split only');
const files = await renderPieces(pieces, (line) => process.stderr.write(`${line}\n`));

const audio = new Map(pieces.map((piece) => [piece.id, decodedForAnalysis(files.get(piece.id)!)]));

function keyOf(piece: Piece, settings: KeySettings): KeyAnalyzer {
  const analyzer = new KeyAnalyzer(ANALYSIS_RATE, settings);
  const samples = audio.get(piece.id)!;
  analyzer.write(samples, samples.length);
  return analyzer;
}

export function scoreKey(settings: KeySettings, subset = pieces): { mirex: number; exact: number } {
  let mirex = 0,
    exact = 0;
  for (const piece of subset) {
    const score = mirexScore(piece.truth, parseKey(keyOfChroma(featuresOf(piece, settings), settings.profiles).key));
    mirex += score;
    exact += score === 1 ? 1 : 0;
  }
  return { mirex: mirex / subset.length, exact: exact / subset.length };
}

/** Each piece's chroma vectors under `settings`, computed once. */
const featureCache = new Map<string, ReturnType<KeyAnalyzer['features']>>();
function featuresOf(piece: Piece, settings: KeySettings): ReturnType<KeyAnalyzer['features']> {
  const id = `${piece.id} ${JSON.stringify({ ...settings, profiles: undefined })}`;
  if (!featureCache.has(id)) featureCache.set(id, keyOf(piece, settings).features());
  return featureCache.get(id)!;
}

/** Profiles and register weights learned on `subset` (learn-profiles.ts), reading `registers`. */
export function learnProfiles(subset: Piece[], settings = KEY_SETTINGS, registers = LEARN_OPTIONS.registers): KeyProfiles {
  const examples = subset.map((piece) => ({ chroma: featuresOf(piece, settings), tonic: piece.truth.tonic, mode: piece.truth.mode }));
  return {
    ...profilesOf(learnWeights(examples, { ...LEARN_OPTIONS, registers }), registers),
    mode: modeProfilesOf(learnModeWeights(examples)),
    rerank: null,
  };
}

const analyzers = new Map<string, TempoAnalyzer>();
function tempoOf(piece: Piece): TempoAnalyzer {
  if (!analyzers.has(piece.id)) {
    const analyzer = new TempoAnalyzer(ANALYSIS_RATE);
    const samples = audio.get(piece.id)!;
    analyzer.write(samples, samples.length);
    analyzers.set(piece.id, analyzer);
  }
  return analyzers.get(piece.id)!;
}

function scoreTempo(subset = pieces): { acc1: number; acc2: number; misses: string[]; kinds: Record<string, number> } {
  let a1 = 0,
    a2 = 0;
  const misses: string[] = [];
  const kinds: Record<string, number> = {};
  for (const piece of subset) {
    const { bpm, confidence } = tempoOf(piece).result();
    if (acc1(piece.truth.bpm, bpm)) a1++;
    else {
      const kind = missKind(piece.truth.bpm, bpm);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      const how = piece.groove ? `${piece.groove.groove}/${piece.groove.bass}${piece.effects ? '/fx' : ''}` : `drums=${piece.spec.drums}`;
      misses.push(`${piece.id} ${piece.degradation} ${how} truth ${piece.truth.bpm} got ${bpm} (${confidence}) ${kind}`);
    }
    if (acc2(piece.truth.bpm, bpm)) a2++;
  }
  return { acc1: a1 / subset.length, acc2: a2 / subset.length, misses, kinds };
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
/** Confidence thresholds `tune.ts tempo` reports Acc1 under and over. */
const CONFIDENCE_THRESHOLDS = [0.05, 0.1, 0.2];

/** Variants of the octave learner `tune.ts tempo '[{"l2":0.0003},{"drop":["…"]}]'` weighs (octave-variants.ts). */
const octaveGrid = what === 'tempo' ? (JSON.parse(process.argv[3] ?? '[]') as OctaveVariant[]) : [];

/** Octave choices wrong with weights learned on the other sound fonts, on each (one fold a font), and the weights learned on all. */
function learnOctave(): number[] {
  const examples = octaveExamples(learnedForTempo);
  for (const line of octaveVariantLines(examples, octaveGrid, FONTS, TEMPO_GENERATORS)) console.log(line);
  const byFont = wrongHeldOut(examples, FONTS, (piece) => piece.font, learnOctaveAs);
  const missed = byFont.flat();
  const playings = ['written', ...REPLAYINGS, 'drums alone'] as const;
  const playingOf = (piece: Piece) => (piece.drumsAlone ? 'drums alone' : (piece.replaying ?? 'written'));
  const byPlaying = playings.map((playing) => [playing, missed.filter((e) => playingOf(e.piece) === playing).length]);
  console.log('wrong across fonts by playing', JSON.stringify(Object.fromEntries(byPlaying)));
  const byGenerator = wrongHeldOut(examples, TEMPO_GENERATORS, (piece) => piece.generator, learnOctaveAs).map(
    (wrong, g) => `${TEMPO_GENERATORS[g]} ${wrong.length} of ${examples.filter((e) => e.piece.generator === TEMPO_GENERATORS[g]).length}`,
  );
  console.log(`wrong on each generator, learned on the others: ${byGenerator.join('; ')}`);
  const weights = learnOctaveAs(examples);
  console.log(
    `${examples.length} octave choices; wrong across fonts ${byFont.map((wrong) => wrong.length).join(' + ')}; on all, learned on all ${examples.filter(wrongWith(weights)).length}`,
  );
  console.log('octave weights learned on the whole tuning split', JSON.stringify(weights));
  return weights;
}

type Fold = { mirex: number; exact: number };
const mean = (folds: Fold[], pick: (fold: Fold) => number) => (folds.reduce((sum, fold) => sum + pick(fold), 0) / folds.length).toFixed(3);
const shown = (folds: Fold[]) => `mirex ${mean(folds, (f) => f.mirex)} exact ${mean(folds, (f) => f.exact)}`;
/**
 * Mean over the folds of each sound font (profiles learned on the other fonts, scored on it), per
 * generator; and across generators (learned on the songs alone, scored on the loops).
 */
function crossValidated(settings: KeySettings, registers: readonly Register[]): string {
  const folds = FONTS.map((font) => {
    const profiles = learnProfiles(
      pieces.filter((piece) => piece.font !== font),
      settings,
      registers,
    );
    const held = pieces.filter((piece) => piece.font === font);
    return KEY_GENERATORS.map((generator) =>
      scoreKey(
        { ...settings, profiles },
        held.filter((piece) => piece.generator === generator),
      ),
    );
  });
  const byGenerator = KEY_GENERATORS.map((generator, g) => `${generator} ${shown(folds.map((fold) => fold[g]!))}`).join('; ');
  const songsOnly = learnProfiles(
    pieces.filter((piece) => piece.generator === 'song'),
    settings,
    registers,
  );
  const across = scoreKey(
    { ...settings, profiles: songsOnly },
    pieces.filter((piece) => piece.generator === 'loop'),
  );
  return `across fonts: ${byGenerator}; songs → loops: ${shown([across])}`;
}
/** Today's key choice: the committed profiles, without their re-rank. */
const committedProfiles: KeyProfiles = { ...KEY_SETTINGS.profiles, rerank: null };
const reRankExamples = (subset: Piece[]) =>
  subset.map((piece) => ({ chroma: featuresOf(piece, KEY_SETTINGS), tonic: piece.truth.tonic, mode: piece.truth.mode }));
/**
 * The re-rank learned on the other sound fonts and scored on each, per generator, beside today's
 * choice without it; for each variant of its options weighed (margin, penalty, steps).
 */
function reRankCrossValidated(variants: ReadonlyArray<Partial<ReRankOptions>>): void {
  const none = FONTS.map((font) =>
    KEY_GENERATORS.map((generator) =>
      scoreKey(
        { ...KEY_SETTINGS, profiles: committedProfiles },
        pieces.filter((piece) => piece.font === font && piece.generator === generator),
      ),
    ),
  );
  console.log(`re-rank: none, across fonts: ${KEY_GENERATORS.map((g, i) => `${g} ${shown(none.map((fold) => fold[i]!))}`).join('; ')}`);
  for (const variant of variants) {
    const folds = FONTS.map((font) => {
      const rerank = learnReRank(reRankExamples(pieces.filter((piece) => piece.font !== font)), committedProfiles, {
        ...RERANK_OPTIONS,
        ...variant,
      });
      return KEY_GENERATORS.map((generator) =>
        scoreKey(
          { ...KEY_SETTINGS, profiles: { ...committedProfiles, rerank } },
          pieces.filter((piece) => piece.font === font && piece.generator === generator),
        ),
      );
    });
    console.log(
      `re-rank ${JSON.stringify(variant)}, across fonts: ${KEY_GENERATORS.map((g, i) => `${g} ${shown(folds.map((fold) => fold[i]!))}`).join('; ')}`,
    );
  }
}
if (what === 'weights') {
  if (only !== 'tempo') {
    const { rerank: _learned, ...profilesProvenance } = committedKey.provenance as Record<string, unknown>;
    const rerank = learnReRank(reRankExamples(keyPieces), committedProfiles);
    writeKeyWeights(repoRoot, { ...committedProfiles, rerank }, KEY_ABOUT, profilesProvenance, KEY_GENERATORS);
  }
  if (only !== 'key') writeOctaveWeights(repoRoot, learnOctave(), OCTAVE_ABOUT, provenance(TEMPO_GENERATORS));
  console.log(`wrote ${[only !== 'tempo' ? KEY_WEIGHTS : '', only !== 'key' ? OCTAVE_WEIGHTS_FILE : ''].filter(Boolean).join(' and ')}`);
} else if (what === 'key') {
  for (const generator of KEY_GENERATORS)
    console.log(
      `current settings on ${generator}`,
      scoreKey(
        KEY_SETTINGS,
        pieces.filter((piece) => piece.generator === generator),
      ),
    );
  reRankCrossValidated([{ margin: 0.03 }, {}, { margin: 0.1 }, ...JSON.parse(process.env.TUNE_RERANK ?? '[]')]);
  const grid = JSON.parse(process.argv[3] ?? '[{}]') as Array<Partial<KeySettings> & { registers?: Register[] }>;
  for (const { registers, ...change } of grid)
    console.log(
      JSON.stringify({ registers, ...change }),
      crossValidated({ ...KEY_SETTINGS, ...change }, registers ?? LEARN_OPTIONS.registers),
    );
  const profiles = learnProfiles(pieces);
  console.log('profiles learned on the whole tuning split', JSON.stringify(profiles));
  console.log('learned on the whole tuning split, scored on it', scoreKey({ ...KEY_SETTINGS, profiles }));
} else {
  const playing = (piece: Piece) =>
    piece.drumsAlone
      ? 'drums alone'
      : piece.degradation === 'broadcast' && piece.id.endsWith('-broadcast')
        ? 'broadcast'
        : (piece.replaying ?? 'written');
  const acrossFonts = tempoAcrossFonts();
  const level = (piece: Piece) => acrossFonts.get(piece.id)!.bpm;
  for (const generator of GENERATORS)
    for (const how of ['written', ...REPLAYINGS, 'broadcast', 'drums alone']) {
      const subset = pieces.filter((piece) => piece.generator === generator && playing(piece) === how);
      if (subset.length === 0) continue;
      const { acc1: a1, acc2: a2, misses, kinds } = scoreTempo(subset);
      console.log(
        `${generator} ${how} (${subset.length}): acc1 ${(100 * a1).toFixed(1)} acc2 ${(100 * a2).toFixed(1)} no bpm ${kinds.none ?? 0}; misses ${JSON.stringify(kinds)}`,
      );
      if (process.env.TUNE_MISSES) for (const miss of misses) console.log(`  ${miss}`);
      const spoken = subset.filter((piece) => piece.speech !== null);
      for (const [what, group] of [
        ['', subset],
        [', with a spoken intro', spoken],
      ] as const) {
        if (group.length === 0 || (what && group.length === subset.length)) continue;
        const share = (test: (piece: Piece) => boolean) => ((100 * group.filter(test).length) / group.length).toFixed(1);
        console.log(
          `across fonts: ${generator} ${how}${what} (${group.length}): acc1 ${share((p) => acc1(p.truth.bpm, level(p)))} acc2 ${share((p) => acc2(p.truth.bpm, level(p)))} no bpm ${group.filter((p) => level(p) === null).length}`,
        );
      }
    }
  for (const generator of GENERATORS) {
    const subset = pieces.filter((piece) => piece.generator === generator);
    const conditions = [...new Set(subset.map((piece) => piece.degradation))];
    const wrong = conditions.map((condition) => {
      const group = subset.filter((piece) => piece.degradation === condition);
      return `${condition} ${group.filter((p) => !acc1(p.truth.bpm, level(p))).length}/${group.length}`;
    });
    console.log(`across fonts, Acc1 misses by degradation: ${generator} ${wrong.join(', ')}`);
  }
  for (const line of writingLines(pieces, level, Boolean(process.env.TUNE_MISSES))) console.log(`across fonts: ${line}`);
  // What the confidence tells a station; and what its two factors (TempoLevel's), alone, would tell.
  const answeredAs = (pick: 'confidence' | 'periodicity' | 'probability') =>
    pieces
      .filter((piece) => level(piece) !== null)
      .map((piece) => ({
        piece,
        estimate: { key: null, keyStrength: 0, bpm: level(piece), tempoConfidence: acrossFonts.get(piece.id)![pick], seconds: 0 },
        audioSeconds: 0,
      }));
  const lines = tempoConfidenceLines(answeredAs('confidence'), CONFIDENCE_THRESHOLDS);
  for (const factor of ['periodicity', 'probability'] as const)
    lines.push(`by ${factor} alone, ${tempoConfidenceLines(answeredAs(factor), []).join('')}`);
  for (const line of lines) console.log(`across fonts, ${line}`);
  learnOctave();
}

/**
 * Each piece's tempo level with the octave weights learned on the other sound fonts' pieces (the
 * comb's tempo at the level chosen, not refined: Acc1's 4 % holds it), or null without a pulse;
 * and its confidence as the analyzer gives it (the periodicity times the octave's probability).
 */
type TempoLevel = { bpm: number | null; confidence: number; periodicity: number; probability: number };
function tempoAcrossFonts(): Map<string, TempoLevel> {
  const examples = octaveExamples(learnedForTempo);
  const levels = new Map<string, TempoLevel>();
  for (const font of FONTS) {
    const weights = learnOctaveAs(examples.filter((e) => e.piece.font !== font));
    for (const piece of pieces.filter((p) => p.font === font)) {
      const pulse = tempoOf(piece).pulse();
      const periodicity = pulse?.periodicity ?? 0;
      if (!pulse?.steady) levels.set(piece.id, { bpm: null, confidence: periodicity, periodicity, probability: 0 });
      else {
        const { bpm, probability } = chooseOctave(pulse.bpm, tempoOf(piece).octaveEvidences(), weights);
        levels.set(piece.id, { bpm, confidence: periodicity * probability, periodicity, probability });
      }
    }
  }
  return levels;
}
