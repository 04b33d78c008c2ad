import { resolve } from 'node:path';
import type { AnalysisOptions, AnalysisResultByType, AnalysisType } from '@catalog/contracts';
import { decodeOnce } from './decode/ffmpeg-decode.js';
import { probeAudio } from './decode/probe.js';
import { AnalysisError } from './errors.js';
import { analysisSettings } from './options.js';
import { buildPipeline } from './pipeline.js';

/** Longest an analysis may take by default (probe and decode together). */
const DEFAULT_ANALYSIS_TIMEOUT_MS = 10 * 60_000;
/** Longest ffprobe may read the headers. */
const PROBE_TIMEOUT_MS = 30_000;

export interface AnalyzeFileOptions {
  /** Options of the types that take any (loudness target, waveform resolution, fingerprint length). */
  options?: AnalysisOptions;
  /** Default `ffmpeg` / `ffprobe` (FFMPEG_PATH / FFPROBE_PATH in the service's configuration). */
  ffmpegPath?: string;
  ffprobePath?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type AnalysisResults<T extends AnalysisType> = { [K in T]: AnalysisResultByType[K] };

/**
 * Analyses a local audio file for every type in `types` with one decode: ffprobe reads the
 * headers (`technical`, and the rate and channels the analyzers need), then one ffmpeg process
 * streams PCM to every analyzer chunk by chunk (memory does not grow with the file's length).
 * Rejects with an AnalysisError (its `code` says why); never leaves a subprocess behind.
 */
export async function analyzeFile<T extends AnalysisType>(
  file: string,
  types: readonly T[],
  options: AnalyzeFileOptions = {},
): Promise<AnalysisResults<T>> {
  const path = resolve(file);
  const settings = analysisSettings(types, options.options ?? {});
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_ANALYSIS_TIMEOUT_MS;
  const technical = await probeAudio(path, {
    ffprobePath: options.ffprobePath ?? 'ffprobe',
    timeoutMs: Math.min(PROBE_TIMEOUT_MS, timeoutMs),
    signal: options.signal,
  });
  const pipeline = buildPipeline(types, technical, settings);
  const remaining = timeoutMs - (Date.now() - started);
  if (remaining <= 0) throw new AnalysisError('analysis_timeout', `the analysis did not finish within ${timeoutMs} ms`, { timeoutMs });
  await decodeOnce(path, pipeline.targets, { ffmpegPath: options.ffmpegPath ?? 'ffmpeg', timeoutMs: remaining, signal: options.signal });
  return pipeline.results() as AnalysisResults<T>;
}
