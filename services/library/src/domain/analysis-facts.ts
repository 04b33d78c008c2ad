import type { TrackAnalysis } from '@catalog/contracts';
import { NO_ANALYSIS } from './track.js';

/** A succeeded analysis job as `listAnalyses` of the analysis service answers it (the agreed interface). */
export interface AnalysisJobFacts {
  jobId: string;
  type: string;
  finishedAt: string | null;
  result: Record<string, unknown> | null;
}

/** The analysis types a track shows, by the job type that computes them. */
export const TRACK_ANALYSIS_TYPES = ['tempo', 'key', 'loudness', 'cue_points', 'technical', 'waveform'] as const;

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const int = (value: unknown): number | null => (Number.isSafeInteger(value) ? (value as number) : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function analysedBy(job: AnalysisJobFacts) {
  return { jobId: job.jobId, analyzedAt: job.finishedAt ?? new Date(0).toISOString(), resultPath: `/api/v1/catalog/analyses/${job.jobId}` };
}

/**
 * The analysis facts of a track from the newest succeeded job of each type (decision 0102): the
 * values a scheduler filters on and the way to the whole result (`resultPath`); a type without a
 * succeeded job stays null (the waveform: not available).
 */
export function analysisFacts(jobs: Partial<Record<(typeof TRACK_ANALYSIS_TYPES)[number], AnalysisJobFacts>>): TrackAnalysis {
  const facts: TrackAnalysis = structuredClone(NO_ANALYSIS);
  const { tempo, key, loudness, cue_points: cuePoints, technical, waveform } = jobs;
  if (tempo?.result) {
    const r = tempo.result;
    const beats = Array.isArray(r.beatsMs) ? r.beatsMs : [];
    facts.tempo = {
      bpm: num(r.bpm),
      confidence: num(r.confidence) ?? 0,
      firstBeatMs: int(r.firstBeatMs) ?? int(beats[0]),
      firstDownbeatMs: int(r.firstDownbeatMs),
      ...analysedBy(tempo),
    };
  }
  if (key?.result) {
    const r = key.result;
    facts.key = {
      key: text(r.key),
      tonic: text(r.tonic),
      mode: text(r.mode),
      camelot: text(r.camelot),
      strength: num(r.strength) ?? 0,
      ...analysedBy(key),
    };
  }
  if (loudness?.result) {
    const r = loudness.result;
    facts.loudness = {
      integratedLufs: num(r.integratedLufs),
      loudnessRangeLu: num(r.loudnessRangeLu),
      truePeakDbtp: num(r.truePeakDbtp),
      samplePeakDbfs: num(r.samplePeakDbfs),
      maxMomentaryLufs: num(r.maxMomentaryLufs),
      maxShortTermLufs: num(r.maxShortTermLufs),
      ...analysedBy(loudness),
    };
  }
  if (cuePoints?.result) {
    const r = cuePoints.result;
    facts.cuePoints = {
      cueInMs: int(r.cueInMs),
      introEndMs: int(r.introEndMs),
      outroStartMs: int(r.outroStartMs),
      nextTrackStartMs: int(r.nextTrackStartMs),
      cueOutMs: int(r.cueOutMs),
      ...analysedBy(cuePoints),
    };
  }
  if (technical?.result) {
    const r = technical.result;
    facts.technical = {
      container: text(r.container) ?? '',
      codec: text(r.codec) ?? '',
      sampleRate: int(r.sampleRate) ?? 0,
      channels: int(r.channels) ?? 0,
      bitDepth: int(r.bitDepth),
      bitrate: int(r.bitrate),
      durationMs: int(r.durationMs),
      ...analysedBy(technical),
    };
  }
  if (waveform) facts.waveform = { available: true, ...analysedBy(waveform) };
  return facts;
}
