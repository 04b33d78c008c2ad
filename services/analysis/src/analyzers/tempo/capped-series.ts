/** Values appended one by one up to `cap` (later ones are dropped); storage doubles as it fills. */
export class CappedSeries {
  private data = new Float32Array(1024);
  private size = 0;

  constructor(readonly cap: number) {}

  push(value: number): void {
    if (this.size >= this.cap) return;
    if (this.size === this.data.length) {
      const grown = new Float32Array(Math.min(this.cap, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.size++] = value;
  }

  values(): Float32Array {
    return this.data.subarray(0, this.size);
  }
}
