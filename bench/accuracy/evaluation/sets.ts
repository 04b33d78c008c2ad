/**
 * bench/accuracy/evaluation/sets.ts: the evaluation sets, fixed before any design reads them
 * (decision 0162). Only the benchmark's runner reads them (run.ts), and every read is logged
 * (read-log.ts); no design choice is made on them: those are made on the tuning split
 * (../corpus.ts, cross-validated by sound font), which tune.ts alone reads.
 *   pop        100 pop-style pieces of a generator written apart from the tuning one (pop.ts);
 *   composed   100 of Bach's chorales from music21's corpus (composed.ts);
 *   broadcast  50 more of each, degraded as broadcast material is (render.ts).
 * Every machine's five General MIDI sound fonts are also the tuning split's and the unit tests':
 * what the evaluation plays that they never do is its instrument programs, its mixes, and the
 * synthesizer's reverb and chorus (the tuning and the key and tempo tests render dry).
 */
import type { SoundFontName } from '@catalog/testing';
import { chorales, composedPiece, type ComposedPiece } from './composed.js';
import { popPiece, type PopPiece } from './pop.js';

export const EVALUATION_SETS = ['pop', 'composed', 'broadcast'] as const;
export type EvaluationSet = (typeof EVALUATION_SETS)[number];
/** Bump when what a piece sounds like changes (the cache is keyed by it). */
export const EVALUATION_VERSION = 1;
const FONTS: SoundFontName[] = ['musescore', 'fluidr3', 'timgm6mb', 'csound', 'opl3'];
/** Chorales read from music21's corpus: 100 for `composed`, 50 for `broadcast`. */
const CHORALES = 160;
/** Signal to noise of the broadcast set's added noise (dB, RMS against RMS). */
export const BROADCAST_SNR_DB = 30;

export interface EvaluationPiece {
  id: string;
  set: EvaluationSet;
  kind: 'pop' | 'composed';
  font: SoundFontName;
  broadcast: boolean;
  describe: string;
  song: PopPiece['song'] | ComposedPiece['song'];
  truth: { tonic: number; mode: 'major' | 'minor'; bpm: number };
}

/** The pieces of `sets`; `python` reads music21's corpus (setup.sh's virtual environment). */
export function evaluationPieces(sets: readonly EvaluationSet[], python: string, cacheDir: string): EvaluationPiece[] {
  const scores = sets.some((set) => set !== 'pop') ? chorales(python, cacheDir, CHORALES) : [];
  const pop = (set: EvaluationSet, first: number, count: number, broadcast: boolean) =>
    Array.from({ length: count }, (_, i): EvaluationPiece => {
      const made = popPiece(first + i, i);
      return { id: `${set}-pop-${first + i}`, set, kind: 'pop', font: FONTS[i % FONTS.length]!, broadcast, ...made };
    });
  const composed = (set: EvaluationSet, first: number, count: number, broadcast: boolean) =>
    Array.from({ length: count }, (_, i): EvaluationPiece => {
      const made = composedPiece(scores[first + i]!, 80_000 + first + i);
      return { id: `${set}-composed-${first + i}`, set, kind: 'composed', font: FONTS[(i + 2) % FONTS.length]!, broadcast, ...made };
    });
  const of: Record<EvaluationSet, () => EvaluationPiece[]> = {
    pop: () => pop('pop', 50_000, 100, false),
    composed: () => composed('composed', 0, 100, false),
    broadcast: () => [...pop('broadcast', 60_000, 50, true), ...composed('broadcast', 100, 50, true)],
  };
  return sets.flatMap((set) => of[set]());
}
