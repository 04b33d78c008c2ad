import FFT from 'fft.js';

/**
 * Magnitude spectrum of Hann-windowed real frames (fft.js, radix-4), scaled so that a full-scale
 * sine reads about 1 at its bin. Buffers are allocated once; the array returned is overwritten by
 * the next call.
 */
export class MagnitudeSpectrum {
  readonly magnitudes: Float32Array;
  private readonly fft: FFT;
  private readonly window: Float32Array;
  private readonly input: Float64Array;
  private readonly output: Float64Array;

  constructor(readonly size: number) {
    this.fft = new FFT(size);
    this.window = Float32Array.from({ length: size }, (_, n) => (0.5 - 0.5 * Math.cos((2 * Math.PI * n) / size)) * (4 / size));
    this.input = new Float64Array(size);
    this.output = new Float64Array(size * 2);
    this.magnitudes = new Float32Array(size / 2 + 1);
  }

  /** Magnitudes |X(k)|, k = 0 … size / 2. */
  compute(frame: Float32Array): Float32Array {
    const power = this.computePower(frame);
    for (let k = 0; k < power.length; k++) power[k] = Math.sqrt(power[k]!);
    return power;
  }

  /** Powers |X(k)|², k = 0 … size / 2 (no square roots). */
  computePower(frame: Float32Array): Float32Array {
    const { input, output, window, magnitudes } = this;
    for (let n = 0; n < this.size; n++) input[n] = frame[n]! * window[n]!;
    this.fft.realTransform(output, input);
    for (let k = 0; k < magnitudes.length; k++) {
      const re = output[2 * k]!,
        im = output[2 * k + 1]!;
      magnitudes[k] = re * re + im * im;
    }
    return magnitudes;
  }
}
