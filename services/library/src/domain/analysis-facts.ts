import type { TrackAnalysis } from '@catalog/contracts';
import type { AnalysisJobFacts, NewestAnalyses } from '../integration/analysis-client.js';
import { NO_ANALYSIS } from './track.js';

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const int = (value: unknown): number | null => (Number.isSafeInteger(value) ? (value as number) : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function analysedBy(job: AnalysisJobFacts) {
  return { jobId: job.jobId, analyzedAt: job.finishedAt ?? new Date(0).toISOString(), resultPath: `/api/v1/catalog/analyses/${job.jobId}` };
}

type Job = AnalysisJobFacts & { summary: Record<string, unknown> };
type Facts = TrackAnalysis;

function tempoFacts(job: Job): Facts['tempo'] {
  const r = job.summary;
  return {
    bpm: num(r.bpm),
    confidence: num(r.confidence) ?? 0,
    firstBeatMs: int(r.firstBeatMs),
    firstDownbeatMs: int(r.firstDownbeatMs),
    ...analysedBy(job),
  };
}

function keyFacts(job: Job): Facts['key'] {
  const r = job.summary;
  return {
    key: text(r.key),
    tonic: text(r.tonic),
    mode: text(r.mode),
    camelot: text(r.camelot),
    strength: num(r.strength) ?? 0,
    ...analysedBy(job),
  };
}

/** The named fields of a result, each read with `read` (null when absent or of another kind), and who analysed it. */
function readFields<K extends string>(job: Job, names: readonly K[], read: (value: unknown) => number | null) {
  const fields = Object.fromEntries(names.map((name) => [name, read(job.summary[name])])) as Record<K, number | null>;
  return { ...fields, ...analysedBy(job) };
}

const LOUDNESS_FIELDS = [
  'integratedLufs',
  'loudnessRangeLu',
  'truePeakDbtp',
  'samplePeakDbfs',
  'maxMomentaryLufs',
  'maxShortTermLufs',
] as const;
const CUE_POINT_FIELDS = ['cueInMs', 'introEndMs', 'outroStartMs', 'nextTrackStartMs', 'cueOutMs'] as const;

const loudnessFacts = (job: Job): Facts['loudness'] => readFields(job, LOUDNESS_FIELDS, num);
const cuePointFacts = (job: Job): Facts['cuePoints'] => readFields(job, CUE_POINT_FIELDS, int);

function technicalFacts(job: Job): Facts['technical'] {
  const r = job.summary;
  return {
    container: text(r.container) ?? '',
    codec: text(r.codec) ?? '',
    sampleRate: int(r.sampleRate) ?? 0,
    channels: int(r.channels) ?? 0,
    bitDepth: int(r.bitDepth),
    bitrate: int(r.bitrate),
    durationMs: int(r.durationMs),
    ...analysedBy(job),
  };
}

/** The job, if it has a summary of its result. */
const withResult = (job: AnalysisJobFacts | undefined): Job | undefined => (job?.summary ? (job as Job) : undefined);

/**
 * The analysis facts of a track from the newest succeeded job of each type (decision 0102): the
 * values a scheduler filters on and the way to the whole result (`resultPath`); a type without a
 * succeeded job stays null (the waveform: not available).
 */
export function analysisFacts(jobs: NewestAnalyses): TrackAnalysis {
  const facts: TrackAnalysis = { ...NO_ANALYSIS, waveform: { ...NO_ANALYSIS.waveform } };
  const tempo = withResult(jobs.tempo);
  const key = withResult(jobs.key);
  const loudness = withResult(jobs.loudness);
  const cuePoints = withResult(jobs.cue_points);
  const technical = withResult(jobs.technical);
  if (tempo) facts.tempo = tempoFacts(tempo);
  if (key) facts.key = keyFacts(key);
  if (loudness) facts.loudness = loudnessFacts(loudness);
  if (cuePoints) facts.cuePoints = cuePointFacts(cuePoints);
  if (technical) facts.technical = technicalFacts(technical);
  if (jobs.waveform) facts.waveform = { available: true, ...analysedBy(jobs.waveform) };
  return facts;
}
