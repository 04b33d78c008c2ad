import type { KeyMode } from '@catalog/contracts';

/** A key as a pitch class (C = 0) and a mode. */
export interface Key {
  tonic: number;
  mode: KeyMode;
}

/**
 * What the re-rank weighs of each candidate key (decision 0164): its score (the 24-key score over
 * the register weights, as the key's strength), the share of the start bass on its tonic, and the
 * share of its tonic triad in the treble of the end and of the start.
 */
export const RERANK_FEATURES = ['score', 'startBassTonic', 'endTrebleTriad', 'startTrebleTriad'] as const;
export type ReRankFeature = (typeof RERANK_FEATURES)[number];

/**
 * Learned on the tuning split (bench/accuracy/learn-rerank.ts): a candidate is weighed only when its
 * score is within `margin` of the first choice's; the one with the highest weighted sum of its
 * features is the key.
 */
export interface ReRank {
  margin: number;
  weights: Record<ReRankFeature, number>;
}

/** The chroma vectors the re-rank reads. */
export interface ReRankChroma {
  startBass: Float64Array;
  startTreble: Float64Array;
  endTreble: Float64Array;
}

/**
 * The keys a loop is mistaken for: the key itself first, its relative, and the keys a fifth above
 * and below in the same mode.
 */
export function neighbours(key: Key): Key[] {
  const relative: Key =
    key.mode === 'major' ? { tonic: (key.tonic + 9) % 12, mode: 'minor' } : { tonic: (key.tonic + 3) % 12, mode: 'major' };
  return [key, relative, { tonic: (key.tonic + 7) % 12, mode: key.mode }, { tonic: (key.tonic + 5) % 12, mode: key.mode }];
}

const share = (chroma: Float64Array, pitchClasses: number[]) => {
  const total = chroma.reduce((sum, v) => sum + v, 0);
  return total > 0 ? pitchClasses.reduce((sum, pc) => sum + chroma[pc % 12]!, 0) / total : 0;
};
const triad = (key: Key) => [key.tonic, key.tonic + (key.mode === 'major' ? 4 : 3), key.tonic + 7];

/** A candidate's features, by name. */
export function reRankFeatures(chroma: ReRankChroma, key: Key, score: number): Record<ReRankFeature, number> {
  return {
    score,
    startBassTonic: share(chroma.startBass, [key.tonic]),
    endTrebleTriad: share(chroma.endTreble, triad(key)),
    startTrebleTriad: share(chroma.startTreble, triad(key)),
  };
}

/** The candidates the re-rank chooses among: the first choice, and its neighbours scoring within the margin of it. */
export function reRankCandidates(first: Key, scoreOf: (key: Key) => number, margin: number): Key[] {
  const floor = scoreOf(first) - margin;
  return neighbours(first).filter((key, i) => i === 0 || scoreOf(key) >= floor);
}

/** The candidate whose features weigh most (the first choice on a tie). */
export function reRanked(chroma: ReRankChroma, first: Key, scoreOf: (key: Key) => number, rerank: ReRank): Key {
  let best = { key: first, value: -Infinity };
  for (const key of reRankCandidates(first, scoreOf, rerank.margin)) {
    const features = reRankFeatures(chroma, key, scoreOf(key));
    const value = RERANK_FEATURES.reduce((sum, name) => sum + rerank.weights[name] * features[name], 0);
    if (value > best.value) best = { key, value };
  }
  return best.key;
}
