/**
 * bench/accuracy/weight-files.ts: the learned weight files the analyzers read
 * (services/analysis/src/analyzers/key/key-weights.json, tempo/octave-weights.json): named values,
 * never positional arrays, with their provenance (the corpus plan they were learned on, the sound
 * fonts, how each piece is rendered, the fluidsynth and ffmpeg versions, the learners' options).
 * tune.ts writes them; the text is a function of the weights and the provenance alone, so the same
 * learning writes the same bytes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { keyWeightsFileOf, octaveWeightsFileOf, type KeyProfiles } from '@catalog/analysis/analyzers';
import { SOUND_FONTS } from '@catalog/testing';
import { GENERATOR_VERSION, GENERATORS, PLAN, REPLAYINGS, type Generator } from './corpus.js';
import { HOMOPHONIC_VERSION } from './homophonic.js';
import { OCTAVE_LEARN } from './learn-octave.js';
import { RERANK_OPTIONS } from './learn-rerank.js';
import { RENDERING } from './render.js';

export const KEY_WEIGHTS = 'services/analysis/src/analyzers/key/key-weights.json';
export const OCTAVE_WEIGHTS_FILE = 'services/analysis/src/analyzers/tempo/octave-weights.json';
/** The one command that learns both files again from the tuning split and writes them. */
export const REGENERATE = 'nice -n 10 node --conditions=source --import tsx bench/accuracy/tune.ts weights';

const firstLine = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8' }).split('\n')[0]!.trim();
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);

/** Where the weights are learned: the tuning corpus's plan, its fonts (file and hash), the tools' versions. */
export function provenance(generators: readonly Generator[] = GENERATORS): Record<string, unknown> {
  const plan = PLAN.filter((group) => group.split === 'tuning' && generators.includes(group.generator));
  const fonts = [...new Set(plan.map((group) => group.font))];
  return {
    regenerate: REGENERATE,
    corpus: {
      generator: `packages/testing generatedSong, bench/accuracy/corpus.ts generator version ${GENERATOR_VERSION}${
        generators.includes('homophonic') ? `, homophonic.ts version ${HOMOPHONIC_VERSION}` : ''
      }`,
      plan: Object.fromEntries(
        plan.map((g) => [
          `${g.split} ${g.font}${g.generator === 'song' ? '' : ` ${g.generator}`}`,
          `seeds ${g.seedBase}–${g.seedBase + g.count - 1}`,
        ]),
      ),
    },
    rendering: RENDERING,
    soundFonts: Object.fromEntries(fonts.map((font) => [font, `${basename(SOUND_FONTS[font])} sha256 ${sha256(SOUND_FONTS[font])}`])),
    fluidsynth: firstLine('fluidsynth', ['--version']),
    ffmpeg: firstLine('ffmpeg', ['-version']),
  };
}

/** The file's text: two-space JSON with a final newline (prettier's own form of it: no arrays). */
export const weightFileText = (file: object) => JSON.stringify(file, null, 2) + '\n';

/**
 * The key file: the profiles kept as committed (with their own provenance, `profilesProvenance`) and
 * the re-rank learned on the tuning split's `generators` (its plan and learner under `rerank`).
 */
export function writeKeyWeights(
  root: string,
  profiles: KeyProfiles,
  about: string,
  profilesProvenance: Record<string, unknown>,
  generators: readonly Generator[],
): void {
  const { corpus, rendering } = provenance(generators);
  const file = keyWeightsFileOf(profiles, about, { ...profilesProvenance, rerank: { corpus, rendering, learner: RERANK_OPTIONS } });
  writeFileSync(join(root, KEY_WEIGHTS), weightFileText(file));
}

export function writeOctaveWeights(root: string, weights: readonly number[], about: string, source: Record<string, unknown>): void {
  const playings = `each piece as written; every homophonic piece and ballad and every eighth song piece also ${REPLAYINGS.join(' and ')} (corpus.ts replayed())`;
  writeFileSync(
    join(root, OCTAVE_WEIGHTS_FILE),
    weightFileText(octaveWeightsFileOf(weights, about, { ...source, playings, learner: OCTAVE_LEARN })),
  );
}

export const KEY_ABOUT =
  "The key analyzer's learned profiles (decisions 0140, 0143): per register and mode, the weights of a logistic regression over the 24 keys by interval from the tonic, scaled to 0…1, and each register's length; the mode's likewise; and the re-rank of the first choice's relative and fifths by the chroma of the piece's start and end (decision 0164): the margin and the weights of a logistic regression on pairs of candidates. Learned on bench/accuracy's tuning split only.";
export const OCTAVE_ABOUT =
  "The tempo analyzer's octave choice (decisions 0140, 0144, 0146, 0163, 0186, 0192): the weights of a logistic regression of 'the beat is the fast level of this pair of levels' on each named feature of tempo-estimate.ts's octave evidence, for the comb's pair and the pair below it. Learned on bench/accuracy's tuning split only (its song, loop, homophonic, ballad and groove generators), as written and replayed.";
