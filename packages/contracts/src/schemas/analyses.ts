import { Type, type Static } from '@sinclair/typebox';

/**
 * Analysis types: the values of an analysis job's `type` and of an entity type's
 * `automaticAnalyses` (the one list of them). Decision 0080.
 */
export const ANALYSIS_TYPES = ['loudness', 'tempo', 'key', 'cue_points', 'technical', 'waveform', 'fingerprint'] as const;
export type AnalysisType = (typeof ANALYSIS_TYPES)[number];
export const AnalysisTypeSchema = Type.Union(ANALYSIS_TYPES.map((t) => Type.Literal(t)));

const Ms = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });
const Db = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

// ---------------------------------------------------------------------------------------------
// Options (per type; types without options take none)

/** Integrated loudness targets of the two profiles (decision 0081). */
export const LOUDNESS_PROFILE_TARGETS = { broadcast: -23, streaming: -16 } as const;

export const LoudnessOptions = Type.Object(
  {
    profile: Type.Optional(
      Type.Union([Type.Literal('broadcast'), Type.Literal('streaming')], {
        description: 'target of the gain: broadcast -23 LUFS (EBU R128, the default), streaming -16 LUFS',
      }),
    ),
    targetLufs: Type.Optional(Type.Number({ minimum: -70, maximum: 0, description: 'explicit target in LUFS; wins over profile' })),
  },
  { additionalProperties: false },
);
export type LoudnessOptions = Static<typeof LoudnessOptions>;

/** Bounds of a waveform's resolution and size (decision 0084). */
export const WAVEFORM_LIMITS = {
  minSamplesPerPixel: 16,
  maxSamplesPerPixel: 1_048_576,
  maxPixelsPerSecond: 2_000,
  maxLength: 100_000,
} as const;

export const WaveformOptions = Type.Object(
  {
    pixelsPerSecond: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: WAVEFORM_LIMITS.maxPixelsPerSecond,
        description: 'resolution in points per second of audio (default 100)',
      }),
    ),
    samplesPerPixel: Type.Optional(
      Type.Integer({
        minimum: WAVEFORM_LIMITS.minSamplesPerPixel,
        maximum: WAVEFORM_LIMITS.maxSamplesPerPixel,
        description: 'resolution in input samples per point (audiowaveform --zoom); wins over pixelsPerSecond',
      }),
    ),
    bits: Type.Optional(Type.Union([Type.Literal(8), Type.Literal(16)], { description: 'resolution of each value (default 8)' })),
    splitChannels: Type.Optional(
      Type.Boolean({ description: 'one min/max pair per channel instead of all channels merged (default false)' }),
    ),
  },
  { additionalProperties: false },
);
export type WaveformOptions = Static<typeof WaveformOptions>;

export const FINGERPRINT_LIMITS = { defaultSeconds: 120, maxSeconds: 900 } as const;

export const FingerprintOptions = Type.Object(
  {
    maxSeconds: Type.Optional(
      Type.Integer({
        minimum: 10,
        maximum: FINGERPRINT_LIMITS.maxSeconds,
        description: 'fingerprint at most this much of the start (default 120, as AcoustID)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FingerprintOptions = Static<typeof FingerprintOptions>;

export const AnalysisOptions = Type.Object(
  {
    loudness: Type.Optional(LoudnessOptions),
    waveform: Type.Optional(WaveformOptions),
    fingerprint: Type.Optional(FingerprintOptions),
  },
  { additionalProperties: false, description: 'options of the types that have any, by type' },
);
export type AnalysisOptions = Static<typeof AnalysisOptions>;

// ---------------------------------------------------------------------------------------------
// Results

export const TechnicalResult = Type.Object(
  {
    container: Type.String({ description: "ffprobe's format name(s), e.g. wav, mp3, flac, ogg, mov,mp4,m4a,3gp,3g2,mj2" }),
    codec: Type.String({ description: "the audio stream's codec, e.g. pcm_s16le, mp3, aac, flac, opus" }),
    sampleRate: Type.Integer({ minimum: 1, description: 'Hz' }),
    channels: Type.Integer({ minimum: 1 }),
    channelLayout: Type.Union([Type.String(), Type.Null()], { description: 'e.g. mono, stereo, 5.1; null when the file does not say' }),
    bitDepth: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'bits per sample of a lossless stream; null for lossy codecs',
    }),
    bitrate: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'bits per second (the stream, else the container); null when unknown',
    }),
    durationMs: Ms('duration from the container, else the stream; null when neither says'),
  },
  { additionalProperties: false },
);
export type TechnicalResult = Static<typeof TechnicalResult>;

export const LoudnessResult = Type.Object(
  {
    integratedLufs: Db(
      'ITU-R BS.1770-4 / EBU R128 gated integrated loudness (LUFS); null for silence (all below the -70 LUFS gate) and files under 400 ms',
    ),
    loudnessRangeLu: Db('EBU Tech 3342 loudness range (LU); null when too little is above the gates'),
    maxMomentaryLufs: Db('loudest 400 ms window (LUFS)'),
    maxShortTermLufs: Db('loudest 3 s window (LUFS); null for files shorter than 3 s'),
    samplePeakDbfs: Db('largest sample (dBFS); null for digital silence'),
    truePeakDbtp: Db('largest 4x-oversampled value (dBTP, BS.1770-4 annex 2); null for digital silence'),
    targetLufs: Type.Number({ description: 'the target the gain refers to' }),
    gainDb: Db('ReplayGain-style gain that brings the integrated loudness to the target (target - integrated); null for silence'),
  },
  { additionalProperties: false },
);
export type LoudnessResult = Static<typeof LoudnessResult>;

export const CuePointsResult = Type.Object(
  {
    cueInMs: Ms('where the audio starts: first 10 ms above integrated - 35 LU (marker cue_in)'),
    introEndMs: Ms('where the body starts: short-term loudness first reaches integrated - 4 LU (marker intro_end)'),
    outroStartMs: Ms('where the body ends: short-term loudness last at integrated - 4 LU (marker outro_start)'),
    nextTrackStartMs: Ms('segue: momentary loudness last above integrated - 12 LU, the next track may start (marker segue)'),
    cueOutMs: Ms('where the audio ends: last 10 ms above integrated - 35 LU (marker cue_out)'),
  },
  { additionalProperties: false, description: 'positions from the start of the file; all null for silence (decision 0082)' },
);
export type CuePointsResult = Static<typeof CuePointsResult>;

/** Most beat positions a tempo result lists (decision 0083). */
export const MAX_BEATS = 2_000;

/** Why a tempo result has no BPM (decision 0191): nothing sounds, or nothing sounding keeps a steady pulse. */
export const NO_BPM_REASONS = ['silence', 'no_steady_pulse'] as const;
export type NoBpmReason = (typeof NO_BPM_REASONS)[number];

export const TempoResult = Type.Object(
  {
    bpm: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description:
        'beats per minute (one decimal), 40–200, percussive or not; null only when the audio has no steady pulse (silence, speech, noise): then confidence is 0 for silence, else the little periodicity found',
    }),
    confidence: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'how clearly the beat stands out of the onset envelope (or, without attacks, of the changes of pitch), times how sure the analyzer is of its octave (half or double tempo); low values are the ones to check',
    }),
    noBpmReason: Type.Optional(
      Type.Union(
        NO_BPM_REASONS.map((reason) => Type.Literal(reason)),
        {
          description:
            'present exactly when bpm is null (results from decision 0191 on): silence, nothing sounds; no_steady_pulse, what sounds keeps no steady beat (speech, noise), confidence then being the periodicity found',
        },
      ),
    ),
    firstBeatMs: Ms('first beat'),
    firstDownbeatMs: Ms('first beat of a bar (4/4 assumed)'),
    beatsMs: Type.Array(Type.Integer({ minimum: 0 }), {
      maxItems: MAX_BEATS,
      description: `beat positions, at most ${MAX_BEATS} (the first ones)`,
    }),
  },
  { additionalProperties: false },
);
export type TempoResult = Static<typeof TempoResult>;

export const KEY_TONICS = ['C', 'Db', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'] as const;
export const KEY_MODES = ['major', 'minor'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

export const KeyResult = Type.Object(
  {
    key: Type.Union([Type.String({ pattern: '^[A-G][b#]? (major|minor)$' }), Type.Null()], {
      description: "e.g. 'A minor'; null for silence",
    }),
    tonic: Type.Union([Type.String({ pattern: '^[A-G][b#]?$' }), Type.Null()]),
    mode: Type.Union([Type.Literal('major'), Type.Literal('minor'), Type.Null()]),
    camelot: Type.Union([Type.String({ pattern: '^(1[0-2]|[1-9])[AB]$' }), Type.Null()], {
      description: "Camelot wheel notation, e.g. '8A' for A minor",
    }),
    strength: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'correlation of the pitch-class profile with the key profile (0 when unknown)',
    }),
  },
  { additionalProperties: false },
);
export type KeyResult = Static<typeof KeyResult>;

export const WaveformResult = Type.Object(
  {
    version: Type.Literal(2),
    channels: Type.Integer({ minimum: 1 }),
    sample_rate: Type.Integer({ minimum: 1 }),
    samples_per_pixel: Type.Integer({ minimum: 1 }),
    bits: Type.Union([Type.Literal(8), Type.Literal(16)]),
    length: Type.Integer({ minimum: 0, description: 'points; data holds length x channels x 2 values' }),
    data: Type.Array(Type.Integer(), { description: 'for each point, for each channel: min, max (signed, bits wide)' }),
  },
  { additionalProperties: false, description: 'the JSON layout of BBC audiowaveform version 2, drawn as is by peaks.js / waveform-data' },
);
export type WaveformResult = Static<typeof WaveformResult>;

export const FingerprintResult = Type.Object(
  {
    algorithm: Type.Integer({ description: "Chromaprint's algorithm number (1: its default, as fpcalc and AcoustID use)" }),
    durationMs: Type.Integer({ minimum: 0, description: 'how much of the start was fingerprinted' }),
    fingerprint: Type.String({ description: 'compressed, URL-safe base64 (the fpcalc / AcoustID form)' }),
    raw: Type.Array(Type.Integer({ minimum: 0, maximum: 4_294_967_295 }), {
      description: 'the raw 32-bit sub-fingerprints (about 8 a second)',
    }),
  },
  { additionalProperties: false },
);
export type FingerprintResult = Static<typeof FingerprintResult>;

// ---------------------------------------------------------------------------------------------
// Summaries: what a listing shows of each result, small and bounded (decision 0113)

export const TempoSummary = Type.Composite(
  [
    Type.Omit(TempoResult, ['beatsMs']),
    Type.Object({ beatCount: Type.Integer({ minimum: 0, maximum: MAX_BEATS, description: 'how many beat positions the result lists' }) }),
  ],
  { additionalProperties: false, description: 'the tempo result without its beat positions' },
);
export type TempoSummary = Static<typeof TempoSummary>;

export const WaveformSummary = Type.Omit(WaveformResult, ['data'], {
  additionalProperties: false,
  description: "the waveform's dimensions without its points (`data`)",
});
export type WaveformSummary = Static<typeof WaveformSummary>;

export const FingerprintSummary = Type.Object(
  {
    algorithm: FingerprintResult.properties.algorithm,
    durationMs: FingerprintResult.properties.durationMs,
    duplicateCount: Type.Integer({ minimum: 0, description: "how many of the tenant's other assets the result lists as duplicates" }),
  },
  { additionalProperties: false, description: 'the fingerprint result without the fingerprint and the duplicates' },
);
export type FingerprintSummary = Static<typeof FingerprintSummary>;

/** The summary of each type: the small results whole, the large ones without their series. */
export const AnalysisSummarySchemas = {
  technical: TechnicalResult,
  loudness: LoudnessResult,
  cue_points: CuePointsResult,
  tempo: TempoSummary,
  key: KeyResult,
  waveform: WaveformSummary,
  fingerprint: FingerprintSummary,
} as const satisfies Record<AnalysisType, unknown>;

export interface AnalysisSummaryByType {
  technical: TechnicalResult;
  loudness: LoudnessResult;
  cue_points: CuePointsResult;
  tempo: TempoSummary;
  key: KeyResult;
  waveform: WaveformSummary;
  fingerprint: FingerprintSummary;
}

/** The result of each type, as an analysis job returns it. */
export const AnalysisResultSchemas = {
  technical: TechnicalResult,
  loudness: LoudnessResult,
  cue_points: CuePointsResult,
  tempo: TempoResult,
  key: KeyResult,
  waveform: WaveformResult,
  fingerprint: FingerprintResult,
} as const satisfies Record<AnalysisType, unknown>;

export interface AnalysisResultByType {
  technical: TechnicalResult;
  loudness: LoudnessResult;
  cue_points: CuePointsResult;
  tempo: TempoResult;
  key: KeyResult;
  waveform: WaveformResult;
  fingerprint: FingerprintResult;
}
