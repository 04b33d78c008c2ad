import { Type, type Static } from '@sinclair/typebox';
import {
  AnalysisOptions,
  AnalysisTypeSchema,
  CuePointsResult,
  FingerprintResult,
  FingerprintSummary,
  KeyResult,
  LoudnessResult,
  TechnicalResult,
  TempoResult,
  TempoSummary,
  WaveformResult,
  WaveformSummary,
} from './analyses.js';
import { PageAfter, Timestamp, Uuid } from './common.js';
import { DmrnValue } from './catalog.js';
import { Marker } from './versions.js';

/** A UUID with a description of its own. */
const UuidOf = (description: string) => Type.String({ format: Uuid.format, pattern: Uuid.pattern, description });

/** States of an analysis job: QUEUED → RUNNING → SUCCEEDED or FAILED (decision 0085). */
export const ANALYSIS_JOB_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type AnalysisJobStatus = (typeof ANALYSIS_JOB_STATUSES)[number];
export const AnalysisJobStatusSchema = Type.Union(ANALYSIS_JOB_STATUSES.map((s) => Type.Literal(s)));

/** What a job analyses: exactly one of an asset, an entity (its primary online audio version) or a version. */
export const AnalysisSource = Type.Object(
  {
    assetId: Type.Optional(Uuid),
    entityId: Type.Optional(UuidOf('the entity: its primary AUDIO version, whose file must be ONLINE')),
    versionId: Type.Optional(UuidOf('an AUDIO version of any entity of the tenant')),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1, description: 'exactly one of assetId, entityId or versionId' },
);
export type AnalysisSource = Static<typeof AnalysisSource>;

export const CreateAnalysisBody = Type.Object(
  {
    type: AnalysisTypeSchema,
    source: AnalysisSource,
    options: Type.Optional(
      Type.Object(AnalysisOptions.properties, {
        additionalProperties: false,
        description: "options by type, e.g. {waveform: {pixelsPerSecond: 50}}; only the job type's entry applies, others are dropped",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateAnalysisBody = Static<typeof CreateAnalysisBody>;

/** One duplicate of the analysed file among the tenant's fingerprinted assets (decision 0089). */
export const FingerprintDuplicate = Type.Object({
  assetId: Uuid,
  entityId: Type.Union([Uuid, Type.Null()], { description: 'the entity the other file was analysed for, if any' }),
  similarity: Type.Number({
    minimum: 0,
    maximum: 1,
    description: '1 - 2 × bit error rate, scaled by the overlap (0.5 and above: duplicate)',
  }),
  offsetSeconds: Type.Number({ description: "where the other file's start lies in this one at the best alignment" }),
});
export type FingerprintDuplicate = Static<typeof FingerprintDuplicate>;

/** Most duplicates a fingerprint result lists (the most similar ones). */
export const MAX_FINGERPRINT_DUPLICATES = 20;

/** A fingerprint job's result: the engine's fingerprint and the tenant's other assets that match it. */
export const FingerprintJobResult = Type.Composite([
  FingerprintResult,
  Type.Object({
    duplicates: Type.Array(FingerprintDuplicate, {
      maxItems: MAX_FINGERPRINT_DUPLICATES,
      description: "the tenant's other fingerprinted assets whose fingerprints match this one, most similar first",
    }),
  }),
]);
export type FingerprintJobResult = Static<typeof FingerprintJobResult>;

export const AnalysisJobResult = Type.Union(
  [TechnicalResult, LoudnessResult, CuePointsResult, TempoResult, KeyResult, WaveformResult, FingerprintJobResult, Type.Null()],
  { description: 'the typed result of the job type once SUCCEEDED (see the analysis result schemas), else null' },
);

/**
 * Codes of a FAILED job's error: insufficient_credits (an automatic analysis the balance could not
 * pay), source_not_found / source_not_online (the file went away before it ran), unreadable_audio,
 * decoder_unavailable, analysis_timeout, invalid_analysis_options, max_deliveries_exceeded, invalid_result (an
 * analyzer's result did not match its type's schema).
 */
export const AnalysisJobError = Type.Object({ code: Type.String(), message: Type.String() });

export const AnalysisJob = Type.Object({
  jobId: Uuid,
  type: AnalysisTypeSchema,
  status: AnalysisJobStatusSchema,
  source: Type.Object(
    { assetId: Type.Optional(Uuid), entityId: Type.Optional(Uuid), versionId: Type.Optional(Uuid) },
    { description: 'the source as requested (automatic analyses: the version)' },
  ),
  resolved: Type.Object(
    { assetId: Uuid, entityId: Type.Union([Uuid, Type.Null()]), versionId: Type.Union([Uuid, Type.Null()]) },
    { description: 'the file analysed, and the entity and version it belongs to (null for an asset source)' },
  ),
  options: AnalysisOptions,
  creditsCharged: Type.Integer({ minimum: 0, description: 'the cost while reserved and once settled; 0 once refunded (FAILED)' }),
  createdAt: Timestamp,
  startedAt: Type.Union([Timestamp, Type.Null()]),
  finishedAt: Type.Union([Timestamp, Type.Null()]),
  result: AnalysisJobResult,
  error: Type.Union([AnalysisJobError, Type.Null()], { description: 'why the job FAILED, else null' }),
});
export type AnalysisJob = Static<typeof AnalysisJob>;

export const AnalysisJobParams = Type.Object({ jobId: Uuid });

export const ListAnalysesQuery = Type.Object(
  {
    entityId: Type.Optional(UuidOf('jobs whose source is or resolved to this entity')),
    assetId: Type.Optional(UuidOf('jobs that named this asset and jobs whose entity or version source resolved to it')),
    type: Type.Optional(AnalysisTypeSchema),
    status: Type.Optional(AnalysisJobStatusSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type ListAnalysesQuery = Static<typeof ListAnalysesQuery>;

/** What a listing shows of a result (decision 0113): the small results whole, the large ones without their series. */
export const AnalysisJobSummary = Type.Union(
  [TechnicalResult, LoudnessResult, CuePointsResult, TempoSummary, KeyResult, WaveformSummary, FingerprintSummary, Type.Null()],
  {
    description:
      'a summary of the result once SUCCEEDED, else null: technical, loudness, cue_points and key whole; tempo without beatsMs (beatCount); waveform without data; fingerprint: algorithm, durationMs, duplicateCount. The whole result: GET /api/v1/catalog/analyses/{jobId}',
  },
);

/** A job as a listing shows it: the job with a summary of its result instead of the result, so a page never outgrows a reply. */
export const AnalysisJobListItem = Type.Composite([Type.Omit(AnalysisJob, ['result']), Type.Object({ summary: AnalysisJobSummary })]);
export type AnalysisJobListItem = Static<typeof AnalysisJobListItem>;

export const AnalysisJobPage = Type.Object({
  analyses: Type.Array(AnalysisJobListItem, { description: 'newest first, each with the summary of its result (not the result)' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `after` for the next page; null when there is none' }),
  hasMore: Type.Boolean(),
});
export type AnalysisJobPage = Static<typeof AnalysisJobPage>;

// ---------------------------------------------------------------------------------------------
// Internal operations of the catalog the analysis service calls (never public)

/** Internal: an entity's primary online audio version, or one version, as an analysis source. */
export const ResolveAnalysisSourceBody = Type.Object(
  { entityId: Type.Optional(Uuid), versionId: Type.Optional(Uuid) },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);
export type ResolveAnalysisSourceBody = Static<typeof ResolveAnalysisSourceBody>;

export const ResolvedAnalysisSource = Type.Object({
  entityId: Uuid,
  versionId: Uuid,
  assetId: Uuid,
  dmrn: Type.Union([DmrnValue, Type.Null()]),
});
export type ResolvedAnalysisSource = Static<typeof ResolvedAnalysisSource>;

/** Internal: the cue points of an analysis as the markers of a version (decision 0088). */
export const ApplyCuePointMarkersBody = Type.Object(
  { versionId: Uuid, markers: Type.Array(Marker, { maxItems: 5 }) },
  { additionalProperties: false },
);
export type ApplyCuePointMarkersBody = Static<typeof ApplyCuePointMarkersBody>;

export const CUE_POINT_MARKER_OUTCOMES = ['applied', 'unchanged', 'set_by_hand', 'not_enabled'] as const;

export const AppliedCuePointMarkers = Type.Object({
  outcome: Type.Union(
    CUE_POINT_MARKER_OUTCOMES.map((o) => Type.Literal(o)),
    {
      description:
        "applied: written (markers.updated recorded); unchanged: the version has them already; set_by_hand: the version's markers were set by hand and win; not_enabled: the entity type does not ask for it",
    },
  ),
});
export type AppliedCuePointMarkers = Static<typeof AppliedCuePointMarkers>;
