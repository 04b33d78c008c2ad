/**
 * bench/accuracy/learn-rerank.ts: the key's re-rank (decision 0164) learned. The analyzer's first
 * choice stands unless its relative or a key a fifth away scores within a margin of it; then the
 * candidate with the highest weighted sum of its named features wins. The weights are those of a
 * logistic regression on pairs (the true key against each other candidate, the difference of their
 * features, no bias; full-batch gradient descent from "the score alone": deterministic), on the
 * pieces whose true key is among their candidates.
 */
import {
  firstChoice,
  RERANK_FEATURES,
  reRankCandidates,
  reRankFeatures,
  type KeyChroma,
  type KeyProfiles,
  type ReRank,
} from '@catalog/analysis/analyzers';
import type { KeyMode } from '@catalog/contracts';

export interface ReRankOptions {
  epochs: number;
  rate: number;
  l2: number;
  /** How far under the first choice's score a neighbour may score and still be weighed. */
  margin: number;
}
export const RERANK_OPTIONS: ReRankOptions = { epochs: 3000, rate: 2, l2: 1e-3, margin: 0.06 };

export interface ReRankExample {
  chroma: KeyChroma;
  tonic: number;
  mode: KeyMode;
}

/** Each example's candidates' feature vectors (in RERANK_FEATURES order) and which is the true key (-1: none). */
function candidatesOf(example: ReRankExample, profiles: KeyProfiles, margin: number): { rows: number[][]; truth: number } {
  const choice = firstChoice(example.chroma, profiles);
  if (!choice) return { rows: [], truth: -1 };
  const candidates = reRankCandidates(choice.first, choice.scoreOf, margin);
  const rows = candidates.map((key) => {
    const features = reRankFeatures(example.chroma, key, choice.scoreOf(key));
    return RERANK_FEATURES.map((name) => features[name]);
  });
  return { rows, truth: candidates.findIndex((key) => key.tonic === example.tonic && key.mode === example.mode) };
}

/** The re-rank learned on `examples` above `profiles` (their own re-rank not read). */
export function learnReRank(examples: ReRankExample[], profiles: KeyProfiles, options: ReRankOptions = RERANK_OPTIONS): ReRank {
  const first = { ...profiles, rerank: null };
  const pairs = examples.flatMap((example) => {
    const { rows, truth } = candidatesOf(example, first, options.margin);
    if (truth < 0) return [];
    return rows.filter((_, i) => i !== truth).map((row) => rows[truth]!.map((v, d) => v - row[d]!));
  });
  const weights: number[] = RERANK_FEATURES.map((name) => (name === 'score' ? 1 : 0));
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const gradient = weights.map(() => 0);
    for (const pair of pairs) {
      const z = pair.reduce((sum, v, d) => sum + v * weights[d]!, 0);
      const wrong = 1 / (1 + Math.exp(z));
      pair.forEach((v, d) => (gradient[d]! -= wrong * v));
    }
    weights.forEach((w, d) => (weights[d] = w - options.rate * (gradient[d]! / Math.max(1, pairs.length) + options.l2 * w)));
  }
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    margin: options.margin,
    weights: Object.fromEntries(RERANK_FEATURES.map((name, d) => [name, round(weights[d]!)])) as ReRank['weights'],
  };
}
