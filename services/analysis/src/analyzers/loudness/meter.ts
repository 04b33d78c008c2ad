import { kWeightedEnergy, kWeightingHighPass, kWeightingShelf, type Biquad } from './k-weighting.js';

/** The meter's grain: 10 ms sub-blocks (cue points read these). */
export const SUB_BLOCK_SECONDS = 0.01;
/** Momentary and short-term loudness are measured every 100 ms (BS.1770 gating blocks overlap 75 %). */
const STEP_SUB_BLOCKS = 10;
const MOMENTARY_SUB_BLOCKS = 40;
const SHORT_TERM_SUB_BLOCKS = 300;

/** What the meter reports; powers are channel-weighted mean squares of the K-weighted signal. */
export interface LoudnessListener {
  /** Sub-block `index` covers [index × 10 ms, (index + 1) × 10 ms). */
  onSubBlock?(index: number, power: number): void;
  /** Every 100 ms, at `endIndex` (sub-blocks so far): the last 400 ms and, once 3 s exist, the last 3 s. */
  onStep?(endIndex: number, momentaryPower: number, shortTermPower: number | null): void;
}

/** Loudness (LUFS) of a channel-weighted mean square, BS.1770-4. */
export function lufs(power: number): number {
  return -0.691 + 10 * Math.log10(power);
}

/**
 * BS.1770-4 channel weights by position: left, right, centre 1.0; LFE 0 (excluded); surround
 * 1.41. Positions follow ffmpeg's channel order for the layout (the default layout for the count
 * when the file names none): LFE is the 4th channel of an `x.1` layout (the 3rd of 2.1), and the
 * channels after front left, right and centre are surrounds (after left and right for quad).
 */
export function channelWeights(channels: number, layout: string | null): Float64Array {
  const name = layout ?? ({ 5: '5.0', 6: '5.1', 8: '7.1' } as Record<number, string>)[channels] ?? '';
  const lfe = /\.1\b/.test(name) ? (name.startsWith('2.1') ? 2 : 3) : -1;
  const firstSurround = name.startsWith('quad') ? 2 : 3;
  return Float64Array.from({ length: channels }, (_, c) => (c === lfe ? 0 : c >= firstSurround && channels > 3 ? 1.41 : 1));
}

/**
 * K-weighted channel-weighted power in 10 ms sub-blocks, and the momentary (400 ms) and short-term
 * (3 s) powers every 100 ms, from interleaved float frames fed chunk by chunk. State: the filters'
 * memory and the last 3 s of sub-block powers.
 */
export class LoudnessMeter {
  private readonly shelf: Biquad;
  private readonly highPass: Biquad;
  private readonly states: Float64Array[];
  private readonly recent = new Float64Array(SHORT_TERM_SUB_BLOCKS);
  private subBlocks = 0;
  private framesInSubBlock = 0;
  private subBlockFrames: number;
  private energy = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly channels: number,
    private readonly weights: Float64Array,
    private readonly listeners: LoudnessListener[],
  ) {
    this.shelf = kWeightingShelf(sampleRate);
    this.highPass = kWeightingHighPass(sampleRate);
    this.states = Array.from({ length: channels }, () => new Float64Array(6));
    this.subBlockFrames = this.framesOfSubBlock(0);
  }

  write(samples: Float32Array, frames: number): void {
    let offset = 0;
    while (offset < frames) {
      const n = Math.min(frames - offset, this.subBlockFrames - this.framesInSubBlock);
      for (let c = 0; c < this.channels; c++) {
        const weight = this.weights[c]!;
        if (weight === 0) continue;
        this.energy += weight * kWeightedEnergy(samples, c, this.channels, offset, n, this.shelf, this.highPass, this.states[c]!);
      }
      offset += n;
      this.framesInSubBlock += n;
      if (this.framesInSubBlock === this.subBlockFrames) this.endSubBlock();
    }
  }

  private framesOfSubBlock(index: number): number {
    const rate = this.sampleRate * SUB_BLOCK_SECONDS;
    return Math.round((index + 1) * rate) - Math.round(index * rate);
  }

  private endSubBlock(): void {
    const power = this.energy / this.subBlockFrames;
    const index = this.subBlocks++;
    this.recent[index % SHORT_TERM_SUB_BLOCKS] = power;
    this.energy = 0;
    this.framesInSubBlock = 0;
    this.subBlockFrames = this.framesOfSubBlock(this.subBlocks);
    for (const listener of this.listeners) listener.onSubBlock?.(index, power);
    if (this.subBlocks % STEP_SUB_BLOCKS === 0 && this.subBlocks >= MOMENTARY_SUB_BLOCKS) {
      const momentary = this.meanOfLast(MOMENTARY_SUB_BLOCKS);
      const shortTerm = this.subBlocks >= SHORT_TERM_SUB_BLOCKS ? this.meanOfLast(SHORT_TERM_SUB_BLOCKS) : null;
      for (const listener of this.listeners) listener.onStep?.(this.subBlocks, momentary, shortTerm);
    }
  }

  private meanOfLast(count: number): number {
    let sum = 0;
    for (let i = this.subBlocks - count; i < this.subBlocks; i++) sum += this.recent[i % SHORT_TERM_SUB_BLOCKS]!;
    return sum / count;
  }
}
