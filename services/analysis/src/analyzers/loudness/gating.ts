import { lufs } from './meter.js';

/** BS.1770-4 absolute gate (LUFS). */
const ABSOLUTE_GATE = -70;
const BIN_LU = 0.01;
const TOP_LUFS = 30;
const BINS = Math.round((TOP_LUFS - ABSOLUTE_GATE) / BIN_LU);

/**
 * Block loudness values kept as a histogram of 0.01 LU bins above the absolute gate, with the
 * exact power sum of each bin: gating and percentiles read the histogram, so the memory is the
 * same for a jingle and for a three-hour programme.
 */
export class LoudnessHistogram {
  private readonly counts = new Float64Array(BINS);
  private readonly powers = new Float64Array(BINS);
  private total = 0;
  private totalPower = 0;

  add(power: number): void {
    const loudness = lufs(power);
    if (!(loudness > ABSOLUTE_GATE)) return;
    const bin = Math.min(BINS - 1, Math.floor((loudness - ABSOLUTE_GATE) / BIN_LU));
    this.counts[bin]! += 1;
    this.powers[bin]! += power;
    this.total += 1;
    this.totalPower += power;
  }

  /** Blocks above the absolute gate. */
  get size(): number {
    return this.total;
  }

  /** First bin whose blocks' mean loudness is at least `relativeLu` below the mean power of all gated blocks. */
  private relativeGateBin(relativeLu: number): number {
    const gate = lufs(this.totalPower / this.total) + relativeLu;
    for (let bin = 0; bin < BINS; bin++) {
      if (this.counts[bin]! > 0 && lufs(this.powers[bin]! / this.counts[bin]!) >= gate) return bin;
    }
    return BINS;
  }

  /** Integrated loudness: mean power of the blocks above the relative gate (-10 LU); null if none passes the absolute gate. */
  integrated(): number | null {
    if (this.total === 0) return null;
    let count = 0;
    let power = 0;
    for (let bin = this.relativeGateBin(-10); bin < BINS; bin++) {
      count += this.counts[bin]!;
      power += this.powers[bin]!;
    }
    return count > 0 ? lufs(power / count) : null;
  }

  /** EBU Tech 3342 loudness range: 95th minus 10th percentile above the relative gate (-20 LU). */
  range(): number | null {
    if (this.total === 0) return null;
    const first = this.relativeGateBin(-20);
    let count = 0;
    for (let bin = first; bin < BINS; bin++) count += this.counts[bin]!;
    if (count < 2) return null;
    const low = this.percentile(first, count, 0.1);
    const high = this.percentile(first, count, 0.95);
    return Math.max(0, high - low);
  }

  /** Nearest-rank percentile among the blocks from bin `first` on: the mean loudness of the bin holding that rank. */
  private percentile(first: number, count: number, fraction: number): number {
    const rank = Math.round((count - 1) * fraction);
    let seen = 0;
    for (let bin = first; bin < BINS; bin++) {
      seen += this.counts[bin]!;
      if (seen > rank) return lufs(this.powers[bin]! / this.counts[bin]!);
    }
    return TOP_LUFS;
  }
}
