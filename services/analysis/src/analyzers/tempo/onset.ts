import { FrameSlicer } from '../dsp/frame-slicer.js';
import { MagnitudeSpectrum } from '../dsp/spectrum.js';

export const ONSET_FRAME = 512;
export const ONSET_HOP = 128;
/** Log compression of the band magnitudes: log(1 + γ |X|). */
const GAMMA = 100;
/** Upper edge of the low band (kick drum, bass): its flux marks bar accents. */
const LOW_BAND_HZ = 200;
/** Bands: one bin wide up to this frequency, then a third of an octave each. */
const LINEAR_UP_TO_HZ = 250;
/**
 * The tonal flux reads single bins (under a semitone wide from here up) in this range: where a
 * sustained instrument's new note shows though its attack is soft (organ, strings, voices).
 */
const TONAL_FROM_HZ = 400;
const TONAL_TO_HZ = 2500;

/**
 * Onset strength of a mono stream: the positive spectral flux of log-compressed band magnitudes
 * (single bins at the bottom, third-octave bands above), ONSET_FRAME-sample Hann frames every
 * ONSET_HOP samples, over all bands and over the low band; and the tonal flux, the same of
 * single bins from TONAL_FROM_HZ to TONAL_TO_HZ, which a change of pitch raises without an attack.
 * Before the first frame is silence.
 */
export class OnsetDetector {
  private readonly slicer: FrameSlicer;
  private readonly spectrum = new MagnitudeSpectrum(ONSET_FRAME);
  private readonly bandOfBin: Int32Array;
  private readonly bandPower: Float64Array;
  private readonly previous: Float64Array;
  private readonly lowBands: number;
  private readonly tonalFrom: number;
  private readonly tonalTo: number;
  private readonly previousBin: Float64Array;

  constructor(
    sampleRate: number,
    private readonly onOnset: (flux: number, lowFlux: number, tonalFlux: number) => void,
  ) {
    const binHz = sampleRate / ONSET_FRAME;
    const bins = ONSET_FRAME / 2 + 1;
    this.tonalFrom = Math.ceil(TONAL_FROM_HZ / binHz);
    this.tonalTo = Math.min(bins - 1, Math.floor(TONAL_TO_HZ / binHz));
    this.previousBin = new Float64Array(bins);
    this.bandOfBin = new Int32Array(bins);
    let band = -1;
    let edge = 0;
    let lowBands = 0;
    for (let k = 1; k < bins; k++) {
      const hz = k * binHz;
      if (hz <= LINEAR_UP_TO_HZ || hz >= edge) {
        band++;
        edge = hz * 2 ** (1 / 3);
        if (hz < LOW_BAND_HZ) lowBands = band + 1;
      }
      this.bandOfBin[k] = band;
    }
    this.bandPower = new Float64Array(band + 1);
    this.previous = new Float64Array(band + 1);
    this.lowBands = lowBands;
    this.slicer = new FrameSlicer(ONSET_FRAME, ONSET_HOP, (frame) => this.frame(frame));
  }

  write(samples: Float32Array, count: number): void {
    this.slicer.write(samples, count);
  }

  private frame(frame: Float32Array): void {
    const power = this.spectrum.computePower(frame);
    const bandPower = this.bandPower.fill(0);
    const bandOfBin = this.bandOfBin;
    for (let k = 1; k < power.length; k++) bandPower[bandOfBin[k]!]! += power[k]!;
    const previous = this.previous;
    let flux = 0;
    let lowFlux = 0;
    for (let b = 0; b < bandPower.length; b++) {
      const level = Math.log1p(GAMMA * Math.sqrt(bandPower[b]!));
      const rise = level - previous[b]!;
      previous[b] = level;
      if (rise > 0) {
        flux += rise;
        if (b < this.lowBands) lowFlux += rise;
      }
    }
    const previousBin = this.previousBin;
    let tonalFlux = 0;
    for (let k = this.tonalFrom; k <= this.tonalTo; k++) {
      const level = Math.log1p(GAMMA * Math.sqrt(power[k]!));
      const rise = level - previousBin[k]!;
      previousBin[k] = level;
      if (rise > 0) tonalFlux += rise;
    }
    this.onOnset(flux, lowFlux, tonalFlux);
  }
}
