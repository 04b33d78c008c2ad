/**
 * Cuts a mono stream fed in chunks of any length into overlapping frames of `size` samples every
 * `hop` samples. The frame passed to `onFrame` is reused: the callback reads it and returns.
 */
export class FrameSlicer {
  private readonly frame: Float32Array;
  private filled = 0;

  constructor(
    readonly size: number,
    readonly hop: number,
    private readonly onFrame: (frame: Float32Array) => void,
  ) {
    this.frame = new Float32Array(size);
  }

  write(samples: Float32Array, count: number): void {
    let offset = 0;
    while (offset < count) {
      const n = Math.min(count - offset, this.size - this.filled);
      this.frame.set(samples.subarray(offset, offset + n), this.filled);
      this.filled += n;
      offset += n;
      if (this.filled === this.size) {
        this.onFrame(this.frame);
        this.frame.copyWithin(0, this.hop);
        this.filled = this.size - this.hop;
      }
    }
  }
}
