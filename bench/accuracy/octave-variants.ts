/**
 * bench/accuracy/octave-variants.ts: how well the octave choice's weights carry over, for
 * `tune.ts tempo`: the choices wrong when each sound font or generator is held out and the weights
 * learned on the rest, for the committed learner and for variants of it (other options, features
 * left out).
 */
import { OCTAVE_FEATURES } from '@catalog/analysis/analyzers';
import type { Piece } from './corpus.js';
import { learnOctaveWeights, OCTAVE_LEARN, octaveScore, type OctaveExample, type OctaveLearnOptions } from './learn-octave.js';

export type PieceExample = OctaveExample & { piece: Piece };
/** A variant of the learner: other options, and features left out (0 in every example, so their weights stay 0). */
export type OctaveVariant = Partial<OctaveLearnOptions> & { drop?: string[] };

/** Whether `weights` choose the wrong level of an example. */
export const wrongWith = (weights: number[]) => (e: OctaveExample) => (octaveScore(e.features, weights) >= 0 ? 1 : 0) !== e.fast;

/** The examples of each group chosen wrong by weights learned on the other groups' examples, group by group. */
export function wrongHeldOut<G>(
  examples: PieceExample[],
  groups: readonly G[],
  groupOf: (piece: Piece) => G,
  learn: (subset: PieceExample[]) => number[],
): PieceExample[][] {
  return groups.map((group) => {
    const weights = learn(examples.filter((e) => groupOf(e.piece) !== group));
    return examples.filter((e) => groupOf(e.piece) === group).filter(wrongWith(weights));
  });
}

/** One line a variant: the choices wrong across fonts, on each generator learned on the others, and the weights learned on all. */
export function octaveVariantLines(
  examples: PieceExample[],
  variants: OctaveVariant[],
  fonts: readonly string[],
  generators: readonly Piece['generator'][],
): string[] {
  return variants.map(({ drop = [], ...options }) => {
    const unknown = drop.filter((feature) => !(OCTAVE_FEATURES as readonly string[]).includes(feature));
    if (unknown.length > 0) throw new Error(`no octave feature ${unknown.join(', ')}`);
    const kept = examples.map((e) => ({ ...e, features: e.features.map((v, i) => (drop.includes(OCTAVE_FEATURES[i]!) ? 0 : v)) }));
    const learn = (subset: PieceExample[]) => learnOctaveWeights(subset, { ...OCTAVE_LEARN, ...options });
    const acrossFonts = wrongHeldOut(kept, fonts, (piece) => piece.font, learn).flat().length;
    const byGenerator = wrongHeldOut(kept, generators, (piece) => piece.generator, learn).map(
      (wrong, g) => `${generators[g]} ${wrong.length}`,
    );
    const weights = JSON.stringify(learn(kept));
    return `octave variant ${JSON.stringify({ drop, ...options })}: wrong across fonts ${acrossFonts}; learned on the others: ${byGenerator.join(', ')}; learned on all ${weights}`;
  });
}
