import type { CuePointsResult } from '@catalog/contracts';
import { LoudnessHistogram } from '../loudness/gating.js';
import { lufs, SUB_BLOCK_SECONDS, type LoudnessListener } from '../loudness/meter.js';
import { LevelCrossings } from './level-crossings.js';

/**
 * Thresholds relative to the integrated loudness (decision 0082). Every point is a first or last
 * crossing over the whole file, so a pause inside the audio (between sentences, a break in the
 * song) never ends it early: the last word of a speech is before cue out and segue.
 */
const CUE_THRESHOLDS_LU = {
  /** cue in / cue out: 10 ms sub-blocks, far below the programme, above hiss and reverb tails' ends. */
  cue: -35,
  /** intro end / outro start: short-term (3 s) loudness at the level of the body of the track. */
  body: -4,
  /** next-track start (segue): momentary (400 ms) loudness last this close to the programme. */
  segue: -12,
} as const;

const MOMENTARY_CENTRE = 0.2;
const SHORT_TERM_CENTRE = 1.5;

/**
 * `cue_points` from the loudness meter: first/last crossings of the 10 ms, momentary and
 * short-term curves (constant memory), read against the integrated loudness at the end.
 * Momentary and short-term times are their windows' centres.
 */
export class CuePointsAnalyzer implements LoudnessListener {
  private readonly blocks = new LoudnessHistogram();
  private readonly fine = new LevelCrossings();
  private readonly momentary = new LevelCrossings();
  private readonly shortTerm = new LevelCrossings();

  onSubBlock(index: number, power: number): void {
    if (power > 0) this.fine.add(lufs(power), index * SUB_BLOCK_SECONDS, (index + 1) * SUB_BLOCK_SECONDS);
  }

  onStep(endIndex: number, momentaryPower: number, shortTermPower: number | null): void {
    const end = endIndex * SUB_BLOCK_SECONDS;
    this.blocks.add(momentaryPower);
    if (momentaryPower > 0) this.momentary.add(lufs(momentaryPower), end - MOMENTARY_CENTRE, end - MOMENTARY_CENTRE);
    if (shortTermPower !== null && shortTermPower > 0)
      this.shortTerm.add(lufs(shortTermPower), end - SHORT_TERM_CENTRE, end - SHORT_TERM_CENTRE);
  }

  result(): CuePointsResult {
    const integrated = this.blocks.integrated();
    const cueIn = integrated === null ? null : this.fine.firstAbove(integrated + CUE_THRESHOLDS_LU.cue);
    const cueOut = integrated === null ? null : this.fine.lastAbove(integrated + CUE_THRESHOLDS_LU.cue);
    if (integrated === null || cueIn === null || cueOut === null) {
      return { cueInMs: null, introEndMs: null, outroStartMs: null, nextTrackStartMs: null, cueOutMs: null };
    }
    const body = integrated + CUE_THRESHOLDS_LU.body;
    const curve = this.shortTerm.empty ? this.momentary : this.shortTerm;
    const clamp = (value: number | null, low: number, fallback: number) => Math.min(cueOut, Math.max(low, value ?? fallback));
    const introEnd = clamp(curve.firstAbove(body), cueIn, cueIn);
    const outroStart = clamp(curve.lastAbove(body), introEnd, cueOut);
    const segue = clamp(this.momentary.lastAbove(integrated + CUE_THRESHOLDS_LU.segue), outroStart, cueOut);
    const ms = (seconds: number) => Math.round(seconds * 1000);
    return {
      cueInMs: ms(cueIn),
      introEndMs: ms(introEnd),
      outroStartMs: ms(outroStart),
      nextTrackStartMs: ms(segue),
      cueOutMs: ms(cueOut),
    };
  }
}
