/**
 * Why an analysis could not run. The job system maps these codes to a job's `error.code`:
 * - `decoder_unavailable`: ffmpeg or ffprobe could not be started (a deployment error);
 * - `unreadable_audio`: the file has no audio stream ffmpeg can decode, or decoding failed;
 * - `analysis_timeout`: decoding took longer than its timeout (the subprocess was killed);
 * - `analysis_aborted`: the caller's signal aborted it (shutdown, cancellation);
 * - `invalid_analysis_options`: an option out of its bounds (the API validates them first).
 */
export type AnalysisErrorCode =
  'decoder_unavailable' | 'unreadable_audio' | 'analysis_timeout' | 'analysis_aborted' | 'invalid_analysis_options';

export class AnalysisError extends Error {
  override readonly name = 'AnalysisError';

  constructor(
    readonly code: AnalysisErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
