import type { AnalysisResultByType, AnalysisType, TechnicalResult } from '@catalog/contracts';
import { CuePointsAnalyzer } from './cue-points/cue-points-analyzer.js';
import { LOW_RATE, type DecodeTargets } from './decode/ffmpeg-decode.js';
import type { FrameSink } from './decode/pcm-frames.js';
import { compressFingerprint } from './fingerprint/chromaprint-codec.js';
import { KeyAnalyzer } from './key/key-analyzer.js';
import { LoudnessAnalyzer } from './loudness/loudness-analyzer.js';
import { channelWeights, LoudnessMeter, type LoudnessListener } from './loudness/meter.js';
import type { AnalysisSettings } from './options.js';
import { TempoAnalyzer } from './tempo/tempo-analyzer.js';
import { WaveformAnalyzer } from './waveform/waveform-analyzer.js';

/** Chromaprint's default algorithm (ffmpeg's chromaprint muxer `-algorithm 1`). */
const CHROMAPRINT_ALGORITHM = 1;

export interface Pipeline {
  targets: DecodeTargets;
  /** Every requested result, once the decode has fed every frame. */
  results(): Partial<AnalysisResultByType>;
}

type Collector = (results: Partial<AnalysisResultByType>) => void;

/** What one part of the pipeline adds: sinks of the two PCM outputs, and result collectors. */
interface Wiring {
  full: FrameSink[];
  low: FrameSink[];
  collectors: Collector[];
}

/**
 * Wires the analyzers of the requested types to the decoder's outputs: loudness and cue points
 * share one K-weighting meter on the full-rate stream (the waveform reads it too); tempo and key
 * share the mono low-rate stream; the fingerprint is ffmpeg's. Only the outputs some analyzer
 * needs are decoded.
 */
export function buildPipeline(types: readonly AnalysisType[], technical: TechnicalResult, settings: AnalysisSettings): Pipeline {
  const wiring: Wiring = { full: [], low: [], collectors: [] };
  const targets: DecodeTargets = {};
  wireLoudnessMeter(types, technical, settings, wiring);
  wireOthers(types, technical, settings, wiring);
  if (types.includes('fingerprint')) {
    let raw: Uint32Array = new Uint32Array(0);
    targets.fingerprint = { maxSeconds: settings.fingerprintSeconds, onRaw: (value) => (raw = value) };
    wiring.collectors.push(
      (results) =>
        (results.fingerprint = {
          algorithm: CHROMAPRINT_ALGORITHM,
          durationMs: Math.min(settings.fingerprintSeconds * 1000, technical.durationMs ?? Infinity),
          fingerprint: compressFingerprint(raw, CHROMAPRINT_ALGORITHM),
          raw: Array.from(raw),
        }),
    );
  }
  if (types.includes('technical')) wiring.collectors.push((results) => (results.technical = technical));
  if (wiring.full.length > 0) targets.full = { channels: technical.channels, sink: fanOut(wiring.full) };
  if (wiring.low.length > 0) targets.low = { sink: fanOut(wiring.low) };
  return {
    targets,
    results() {
      const results: Partial<AnalysisResultByType> = {};
      for (const collect of wiring.collectors) collect(results);
      return results;
    },
  };
}

/** Loudness and cue points: one K-weighting meter on the full-rate stream reports to both. */
function wireLoudnessMeter(types: readonly AnalysisType[], technical: TechnicalResult, settings: AnalysisSettings, wiring: Wiring): void {
  const { sampleRate, channels } = technical;
  const listeners: LoudnessListener[] = [];
  if (types.includes('loudness')) {
    const loudness = new LoudnessAnalyzer(sampleRate, channels, settings.targetLufs);
    listeners.push(loudness);
    wiring.full.push((samples, frames) => loudness.write(samples, frames));
    wiring.collectors.push((results) => (results.loudness = loudness.result()));
  }
  if (types.includes('cue_points')) {
    const cuePoints = new CuePointsAnalyzer();
    listeners.push(cuePoints);
    wiring.collectors.push((results) => (results.cue_points = cuePoints.result()));
  }
  if (listeners.length > 0) {
    const meter = new LoudnessMeter(sampleRate, channels, channelWeights(channels, technical.channelLayout), listeners);
    wiring.full.push((samples, frames) => meter.write(samples, frames));
  }
}

/** The waveform on the full-rate stream; tempo and key on the low-rate one. */
function wireOthers(types: readonly AnalysisType[], technical: TechnicalResult, settings: AnalysisSettings, wiring: Wiring): void {
  const { sampleRate, channels } = technical;
  if (types.includes('waveform')) {
    const expected = technical.durationMs === null ? null : Math.ceil((technical.durationMs / 1000) * sampleRate);
    const waveform = new WaveformAnalyzer(sampleRate, channels, settings.waveform(sampleRate), expected);
    wiring.full.push((samples, frames) => waveform.write(samples, frames));
    wiring.collectors.push((results) => (results.waveform = waveform.result()));
  }
  if (types.includes('tempo')) {
    const tempo = new TempoAnalyzer(LOW_RATE);
    wiring.low.push((samples, count) => tempo.write(samples, count));
    wiring.collectors.push((results) => (results.tempo = tempo.result()));
  }
  if (types.includes('key')) {
    const key = new KeyAnalyzer(LOW_RATE);
    wiring.low.push((samples, count) => key.write(samples, count));
    wiring.collectors.push((results) => (results.key = key.result()));
  }
}

function fanOut(sinks: FrameSink[]): FrameSink {
  return sinks.length === 1 ? sinks[0]! : (samples, frames) => sinks.forEach((sink) => sink(samples, frames));
}
