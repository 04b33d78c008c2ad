/**
 * Receives interleaved 32-bit float frames: `samples` holds `frames × channels` values. The view
 * is reused for the next chunk: a sink copies what it keeps.
 */
export type FrameSink = (samples: Float32Array, frames: number) => void;

/**
 * Turns the byte chunks of an `f32le` pipe into whole interleaved frames: a chunk may end inside
 * a sample or a frame, and a Buffer's offset need not be 4-aligned, so each chunk is copied
 * behind the previous remainder into one reused aligned buffer (grown only for a larger chunk).
 */
export class PcmFrameReader {
  private bytes: Uint8Array;
  private carried = 0;
  private readonly frameBytes: number;

  constructor(
    private readonly channels: number,
    private readonly sink: FrameSink,
    initialBytes = 128 * 1024,
  ) {
    this.frameBytes = channels * 4;
    this.bytes = new Uint8Array(initialBytes);
  }

  push(chunk: Uint8Array): void {
    const total = this.carried + chunk.length;
    if (total > this.bytes.length) {
      const grown = new Uint8Array(Math.max(total, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.carried));
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.carried);
    const frames = Math.floor(total / this.frameBytes);
    const used = frames * this.frameBytes;
    if (frames > 0) this.sink(new Float32Array(this.bytes.buffer, 0, frames * this.channels), frames);
    this.carried = total - used;
    if (this.carried > 0) this.bytes.copyWithin(0, used, total);
  }
}
