import { ANALYSIS_TYPES, AnalysisOptions, FINGERPRINT_LIMITS, LOUDNESS_PROFILE_TARGETS, WAVEFORM_LIMITS } from '@catalog/contracts';
import { Value } from '@sinclair/typebox/value';
import { AnalysisError } from './errors.js';
import type { WaveformSettings } from './waveform/waveform-analyzer.js';

/** Waveform resolution when none is asked for: 100 points a second. */
const DEFAULT_PIXELS_PER_SECOND = 100;

export interface AnalysisSettings {
  targetLufs: number;
  /** Waveform settings once the sample rate is known. */
  waveform(sampleRate: number): WaveformSettings;
  fingerprintSeconds: number;
}

/**
 * Checks the types and options asked for against the contract's schemas (the API validates
 * them before; this guards other callers) and fills in the defaults.
 */
export function analysisSettings(types: readonly string[], options: unknown = {}): AnalysisSettings {
  const unknown = types.filter((type) => !(ANALYSIS_TYPES as readonly string[]).includes(type));
  if (types.length === 0 || unknown.length > 0) {
    throw new AnalysisError('invalid_analysis_options', 'ask for one or more analysis types', { unknown, allowed: [...ANALYSIS_TYPES] });
  }
  if (!Value.Check(AnalysisOptions, options)) {
    const issues = [...Value.Errors(AnalysisOptions, options)].slice(0, 5).map((e) => ({ path: e.path, message: e.message }));
    throw new AnalysisError('invalid_analysis_options', 'analysis options out of bounds', { issues });
  }
  const { loudness = {}, waveform = {}, fingerprint = {} } = options as AnalysisOptions;
  return {
    targetLufs: loudness.targetLufs ?? LOUDNESS_PROFILE_TARGETS[loudness.profile ?? 'broadcast'],
    fingerprintSeconds: fingerprint.maxSeconds ?? FINGERPRINT_LIMITS.defaultSeconds,
    waveform: (sampleRate) => ({
      samplesPerPixel:
        waveform.samplesPerPixel ??
        Math.max(WAVEFORM_LIMITS.minSamplesPerPixel, Math.round(sampleRate / (waveform.pixelsPerSecond ?? DEFAULT_PIXELS_PER_SECOND))),
      bits: waveform.bits ?? 8,
      splitChannels: waveform.splitChannels ?? false,
    }),
  };
}
