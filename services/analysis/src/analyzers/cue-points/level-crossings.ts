const LOWEST = -100;
const STEP_LU = 0.25;
const LEVELS = 481; // -100 … +20 LUFS

/**
 * When a loudness curve was first and last at or above each level of a 0.25 LU grid, without
 * keeping the curve: each value only updates the grid level just below it, and a query takes the
 * earliest (latest) time over that level and every level above. Constant memory, O(1) a value.
 */
export class LevelCrossings {
  private readonly first = new Float64Array(LEVELS).fill(Infinity);
  private readonly last = new Float64Array(LEVELS).fill(-Infinity);
  private seen = false;

  /** A value `loudness` (LUFS) that held from `start` to `end` (seconds). */
  add(loudness: number, start: number, end: number): void {
    if (!(loudness >= LOWEST)) return;
    const level = Math.min(LEVELS - 1, Math.floor((loudness - LOWEST) / STEP_LU));
    if (start < this.first[level]!) this.first[level] = start;
    if (end > this.last[level]!) this.last[level] = end;
    this.seen = true;
  }

  get empty(): boolean {
    return !this.seen;
  }

  /** Start of the first value at or above `threshold` (rounded up to the grid); null if none. */
  firstAbove(threshold: number): number | null {
    let time = Infinity;
    for (let level = this.levelAtOrAbove(threshold); level < LEVELS; level++) time = Math.min(time, this.first[level]!);
    return Number.isFinite(time) ? time : null;
  }

  /** End of the last value at or above `threshold` (rounded up to the grid); null if none. */
  lastAbove(threshold: number): number | null {
    let time = -Infinity;
    for (let level = this.levelAtOrAbove(threshold); level < LEVELS; level++) time = Math.max(time, this.last[level]!);
    return Number.isFinite(time) ? time : null;
  }

  private levelAtOrAbove(threshold: number): number {
    return Math.max(0, Math.ceil((threshold - LOWEST) / STEP_LU - 1e-9));
  }
}
