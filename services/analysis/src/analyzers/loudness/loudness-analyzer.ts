import type { LoudnessResult } from '@catalog/contracts';
import { LoudnessHistogram } from './gating.js';
import { lufs, type LoudnessListener } from './meter.js';
import { PeakMeter } from './peaks.js';

const round2 = (value: number) => Math.round(value * 100) / 100;
/** Quieter than this is digital silence (the filters' anti-denormal floor): no value. */
const SILENCE_LUFS = -100;
const loudnessOrNull = (power: number) => (power > 0 && lufs(power) > SILENCE_LUFS ? round2(lufs(power)) : null);
const db = (linear: number) => (linear > 0 ? round2(20 * Math.log10(linear)) : null);

/**
 * `loudness`: integrated loudness and loudness range from the meter's 100 ms steps (gated
 * histograms), the loudest momentary and short-term values, sample and true peak from the
 * samples, and the gain to the target.
 */
export class LoudnessAnalyzer implements LoudnessListener {
  private readonly blocks = new LoudnessHistogram();
  private readonly shortTerm = new LoudnessHistogram();
  private readonly peaks: PeakMeter;
  private maxMomentary = 0;
  private maxShortTerm = 0;

  constructor(
    sampleRate: number,
    channels: number,
    private readonly targetLufs: number,
  ) {
    this.peaks = new PeakMeter(sampleRate, channels);
  }

  /** The samples themselves (peaks); the meter reports the K-weighted powers to `onStep`. */
  write(samples: Float32Array, frames: number): void {
    this.peaks.write(samples, frames);
  }

  onStep(_endIndex: number, momentaryPower: number, shortTermPower: number | null): void {
    this.blocks.add(momentaryPower);
    if (momentaryPower > this.maxMomentary) this.maxMomentary = momentaryPower;
    if (shortTermPower !== null) {
      this.shortTerm.add(shortTermPower);
      if (shortTermPower > this.maxShortTerm) this.maxShortTerm = shortTermPower;
    }
  }

  result(): LoudnessResult {
    const integrated = this.blocks.integrated();
    const range = this.shortTerm.range();
    const { samplePeak, truePeak } = this.peaks.result();
    return {
      integratedLufs: integrated === null ? null : round2(integrated),
      loudnessRangeLu: range === null ? null : round2(range),
      maxMomentaryLufs: loudnessOrNull(this.maxMomentary),
      maxShortTermLufs: loudnessOrNull(this.maxShortTerm),
      samplePeakDbfs: db(samplePeak),
      truePeakDbtp: db(truePeak),
      targetLufs: this.targetLufs,
      gainDb: integrated === null ? null : round2(this.targetLufs - integrated),
    };
  }
}
