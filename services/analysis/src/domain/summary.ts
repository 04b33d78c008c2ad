import type {
  AnalysisSummaryByType,
  AnalysisType,
  FingerprintJobResult,
  FingerprintSummary,
  TempoResult,
  TempoSummary,
  WaveformResult,
  WaveformSummary,
} from '@catalog/contracts';

/**
 * What a listing shows of a result (decision 0113), small whatever the result's size: the small
 * results whole (technical, loudness, cue_points, key), the tempo without its beat positions, the
 * waveform without its points, the fingerprint without the fingerprint and its duplicates.
 */
export function resultSummary(type: AnalysisType, result: unknown): AnalysisSummaryByType[AnalysisType] {
  switch (type) {
    case 'tempo': {
      const { beatsMs, ...rest } = result as TempoResult;
      return { ...rest, beatCount: beatsMs.length } satisfies TempoSummary;
    }
    case 'waveform': {
      const { data: _data, ...rest } = result as WaveformResult;
      return rest satisfies WaveformSummary;
    }
    case 'fingerprint': {
      const { algorithm, durationMs, duplicates } = result as FingerprintJobResult;
      return { algorithm, durationMs, duplicateCount: duplicates.length } satisfies FingerprintSummary;
    }
    default:
      return result as AnalysisSummaryByType[AnalysisType];
  }
}
