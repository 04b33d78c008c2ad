/**
 * bench/accuracy/summary.ts: the scores of each system over groups of pieces (a split, a sound
 * font, a degradation), the key errors by kind, the time per file, and whether the confidence
 * means something: accuracy of the pieces at or above the system's median confidence against those
 * below it.
 */
import type { Piece } from './corpus.js';
import type { Estimate } from './estimators.js';
import { acc1, acc2, keyErrorKind, mirexScore, parseKey } from './metrics.js';

export interface GroupScores {
  pieces: number;
  keyMirex: number;
  keyExact: number;
  tempoAcc1: number;
  tempoAcc2: number;
  keyErrors: Record<string, number>;
  secondsPerFile: number;
  /** Audio seconds analysed per second of wall time. */
  realtime: number;
}

export interface ConfidenceSplit {
  threshold: number;
  above: { pieces: number; accuracy: number };
  below: { pieces: number; accuracy: number };
}

const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** What scoring reads of a piece: its truth. */
export interface Labelled {
  truth: Piece['truth'];
}

export interface Scored<P extends Labelled = Piece> {
  piece: P;
  estimate: Estimate;
  audioSeconds: number;
}

export function scoreGroup(scored: Array<Scored<Labelled>>): GroupScores {
  const keyErrors: Record<string, number> = {};
  const mirex: number[] = [];
  const t1: number[] = [];
  const t2: number[] = [];
  for (const { piece, estimate } of scored) {
    const estimated = parseKey(estimate.key);
    mirex.push(mirexScore(piece.truth, estimated));
    const kind = keyErrorKind(piece.truth, estimated);
    keyErrors[kind] = (keyErrors[kind] ?? 0) + 1;
    t1.push(acc1(piece.truth.bpm, estimate.bpm) ? 1 : 0);
    t2.push(acc2(piece.truth.bpm, estimate.bpm) ? 1 : 0);
  }
  const seconds = scored.reduce((sum, s) => sum + s.estimate.seconds, 0);
  const audio = scored.reduce((sum, s) => sum + s.audioSeconds, 0);
  return {
    pieces: scored.length,
    keyMirex: round(mean(mirex)),
    keyExact: round((keyErrors.exact ?? 0) / Math.max(1, scored.length)),
    tempoAcc1: round(mean(t1)),
    tempoAcc2: round(mean(t2)),
    keyErrors,
    secondsPerFile: round(seconds / Math.max(1, scored.length), 4),
    realtime: round(audio / Math.max(1e-9, seconds), 1),
  };
}

/** Accuracy (of `correct`) at or above a threshold of `confidence` (by default its median) and below it. */
export function confidenceSplit(
  scored: Array<Scored<Labelled>>,
  confidence: (e: Estimate) => number,
  correct: (s: Scored<Labelled>) => boolean,
  at?: number,
): ConfidenceSplit {
  const values = scored.map((s) => confidence(s.estimate)).sort((a, b) => a - b);
  const threshold = at ?? values[Math.floor(values.length / 2)] ?? 0;
  const above = scored.filter((s) => confidence(s.estimate) >= threshold);
  const below = scored.filter((s) => confidence(s.estimate) < threshold);
  const accuracy = (group: Array<Scored<Labelled>>) => round(mean(group.map((s) => (correct(s) ? 1 : 0))));
  return {
    threshold: round(threshold),
    above: { pieces: above.length, accuracy: accuracy(above) },
    below: { pieces: below.length, accuracy: accuracy(below) },
  };
}

/** How often a correct piece's `confidence` is over an incorrect one's (ties count half): the ROC curve's area. */
export function confidenceRanking(
  scored: Array<Scored<Labelled>>,
  confidence: (e: Estimate) => number,
  correct: (s: Scored<Labelled>) => boolean,
): number {
  const right = scored.filter(correct).map((s) => confidence(s.estimate));
  const wrong = scored.filter((s) => !correct(s)).map((s) => confidence(s.estimate));
  let wins = 0;
  for (const a of right) for (const b of wrong) wins += a > b ? 1 : a === b ? 0.5 : 0;
  return right.length * wrong.length > 0 ? round(wins / (right.length * wrong.length)) : 0;
}

export const keyCorrect = (s: Scored<Labelled>) => mirexScore(s.piece.truth, parseKey(s.estimate.key)) === 1;
export const tempoCorrect = (s: Scored<Labelled>) => acc1(s.piece.truth.bpm, s.estimate.bpm);

/** The groups reported: everything, each split, each sound font, each degradation (validation and tuning together). */
export function groupsOf(pieces: Piece[]): Array<[string, (piece: Piece) => boolean]> {
  const fonts = [...new Set(pieces.map((p) => p.font))];
  const degradations = [...new Set(pieces.map((p) => p.degradation))];
  const splits = [...new Set(pieces.map((p) => p.split))];
  return [
    ['all', () => true],
    ...splits.map((split): [string, (p: Piece) => boolean] => [`split ${split}`, (p) => p.split === split]),
    ...fonts.map((font): [string, (p: Piece) => boolean] => [`font ${font}`, (p) => p.font === font]),
    ...degradations.map((d): [string, (p: Piece) => boolean] => [`degradation ${d}`, (p) => p.degradation === d]),
    ['with drums', (p) => p.spec.drums !== null],
    ['without drums', (p) => p.spec.drums === null],
    ['swing', (p) => p.spec.swing],
  ];
}

/**
 * What a tempo confidence tells a station, as `tune.ts tempo` prints it: Acc1 under and at or over
 * each threshold, and how often a right BPM's confidence is over a wrong one's.
 */
export function tempoConfidenceLines(answered: Array<Scored<Labelled>>, thresholds: readonly number[]): string[] {
  const confidence = (estimate: Estimate) => estimate.tempoConfidence;
  const share = (group: ConfidenceSplit['above']) => `${(100 * group.accuracy).toFixed(1)} % of ${group.pieces}`;
  return [
    ...thresholds.map((threshold) => {
      const { above, below } = confidenceSplit(answered, confidence, tempoCorrect, threshold);
      return `Acc1 by confidence: under ${threshold} ${share(below)}; at or over it ${share(above)}`;
    }),
    `a right BPM's confidence over a wrong one's: ${(100 * confidenceRanking(answered, confidence, tempoCorrect)).toFixed(1)} % of pairs`,
  ];
}

/**
 * Acc1 of the homophonic pieces in eighths and written plainly (decision 0192), every playing, by
 * `bpm` (tune.ts's across fonts); with `misses`, each wrong one as truth→read.
 */
export function writingLines(pieces: Piece[], bpm: (piece: Piece) => number | null, misses: boolean): string[] {
  return [true, false].flatMap((eighths) => {
    const group = pieces.filter((p) => p.homophonic && (p.homophonic.writing?.busy !== undefined) === eighths);
    const wrong = group.filter((p) => !acc1(p.truth.bpm, bpm(p)));
    const share = ((100 * (group.length - wrong.length)) / group.length).toFixed(1);
    const line = `homophonic ${eighths ? 'in eighths' : 'plainly'}, every playing (${group.length}): acc1 ${share}`;
    return misses ? [line, wrong.map((p) => `${p.truth.bpm}→${bpm(p)?.toFixed(0)}`).join(' ')] : [line];
  });
}
