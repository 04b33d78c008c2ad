import { WAVEFORM_LIMITS, type WaveformResult } from '@catalog/contracts';

export interface WaveformSettings {
  samplesPerPixel: number;
  bits: 8 | 16;
  splitChannels: boolean;
}

/**
 * `waveform`: the min and max of each run of `samplesPerPixel` frames (all channels averaged, as
 * audiowaveform does, or each channel), in the JSON layout of BBC audiowaveform version 2. At
 * most WAVEFORM_LIMITS.maxLength points: when a file is longer than its duration promised, pairs
 * of points merge and the resolution halves, so the result never outgrows the bound.
 */
export class WaveformAnalyzer {
  private samplesPerPixel: number;
  private readonly outChannels: number;
  private mins: Float32Array;
  private maxs: Float32Array;
  private length = 0;
  private inPixel = 0;
  private readonly currentMin: Float64Array;
  private readonly currentMax: Float64Array;

  constructor(
    private readonly sampleRate: number,
    private readonly channels: number,
    private readonly settings: WaveformSettings,
    expectedFrames: number | null,
  ) {
    this.outChannels = settings.splitChannels ? channels : 1;
    this.samplesPerPixel = settings.samplesPerPixel;
    while (expectedFrames !== null && Math.ceil(expectedFrames / this.samplesPerPixel) > WAVEFORM_LIMITS.maxLength)
      this.samplesPerPixel *= 2;
    this.mins = new Float32Array(WAVEFORM_LIMITS.maxLength * this.outChannels);
    this.maxs = new Float32Array(WAVEFORM_LIMITS.maxLength * this.outChannels);
    this.currentMin = new Float64Array(this.outChannels).fill(Infinity);
    this.currentMax = new Float64Array(this.outChannels).fill(-Infinity);
  }

  write(samples: Float32Array, frames: number): void {
    let offset = 0;
    while (offset < frames) {
      const n = Math.min(frames - offset, this.samplesPerPixel - this.inPixel);
      if (this.outChannels === 1) this.mergedRun(samples, offset, n);
      else for (let c = 0; c < this.channels; c++) this.channelRun(samples, offset, n, c);
      offset += n;
      this.inPixel += n;
      if (this.inPixel === this.samplesPerPixel) this.endPixel();
    }
  }

  /** Min and max of the channels' average over frames [offset, offset + n). */
  private mergedRun(samples: Float32Array, offset: number, n: number): void {
    const channels = this.channels;
    const scale = 1 / channels;
    let min = this.currentMin[0]!,
      max = this.currentMax[0]!;
    for (let i = offset * channels, end = (offset + n) * channels; i < end; i += channels) {
      let sum = samples[i]!;
      for (let c = 1; c < channels; c++) sum += samples[i + c]!;
      const v = sum * scale;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    this.currentMin[0] = min;
    this.currentMax[0] = max;
  }

  private channelRun(samples: Float32Array, offset: number, n: number, channel: number): void {
    const channels = this.channels;
    let min = this.currentMin[channel]!,
      max = this.currentMax[channel]!;
    for (let i = offset * channels + channel, end = (offset + n) * channels; i < end; i += channels) {
      const v = samples[i]!;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    this.currentMin[channel] = min;
    this.currentMax[channel] = max;
  }

  /** A point is complete: stored, or, at the bound, the points merge and it becomes half of a coarser one. */
  private endPixel(): void {
    if (this.length === WAVEFORM_LIMITS.maxLength) {
      this.halveResolution();
      this.inPixel = this.samplesPerPixel / 2;
      return;
    }
    this.storePoint();
  }

  private storePoint(): void {
    for (let c = 0; c < this.outChannels; c++) {
      this.mins[this.length * this.outChannels + c] = this.currentMin[c]!;
      this.maxs[this.length * this.outChannels + c] = this.currentMax[c]!;
    }
    this.length++;
    this.inPixel = 0;
    this.currentMin.fill(Infinity);
    this.currentMax.fill(-Infinity);
  }

  /** Merges point pairs in place and doubles the samples per point. */
  private halveResolution(): void {
    const n = this.outChannels;
    const half = Math.floor(this.length / 2);
    for (let i = 0; i < half; i++) {
      for (let c = 0; c < n; c++) {
        this.mins[i * n + c] = Math.min(this.mins[2 * i * n + c]!, this.mins[(2 * i + 1) * n + c]!);
        this.maxs[i * n + c] = Math.max(this.maxs[2 * i * n + c]!, this.maxs[(2 * i + 1) * n + c]!);
      }
    }
    this.length = half;
    this.samplesPerPixel *= 2;
  }

  result(): WaveformResult {
    if (this.inPixel > 0) {
      if (this.length === WAVEFORM_LIMITS.maxLength) this.halveResolution();
      this.storePoint();
    }
    const top = this.settings.bits === 8 ? 127 : 32767;
    // Rounded symmetrically (Math.round alone takes -63.5 to -63 but 63.5 to 64).
    const quantise = (v: number) => Math.max(-top - 1, Math.min(top, Math.sign(v) * Math.round(Math.abs(v) * top)));
    const data = new Array<number>(this.length * this.outChannels * 2);
    for (let i = 0; i < this.length * this.outChannels; i++) {
      data[2 * i] = quantise(this.mins[i]!);
      data[2 * i + 1] = quantise(this.maxs[i]!);
    }
    return {
      version: 2,
      channels: this.outChannels,
      sample_rate: this.sampleRate,
      samples_per_pixel: this.samplesPerPixel,
      bits: this.settings.bits,
      length: this.length,
      data,
    };
  }
}
