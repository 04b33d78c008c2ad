import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AssetStatusSchema } from './assets.js';
import { DmrnValue, Entity, EntityTypeName } from './catalog.js';
import { Cursor, Line, Timestamp, Uuid } from './common.js';
import { Marker, VersionTypeSchema } from './versions.js';
import { MAX_TRACK_RELATIONS, TrackRelation } from './relations.js';
import { SyncStateSchema } from './integrations.js';

/**
 * The library product (`/api/v1/library`, decision 0100): the tenant's tracks, i.e. the entities
 * that have a primary ONLINE audio version, with their analysis facts, searchable.
 */

const nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});

/** The primary audio version a track plays (its file is ONLINE). */
export const TrackAudioVersion = Type.Object({
  id: Uuid,
  label: Type.String(),
  versionType: VersionTypeSchema,
  assetId: Uuid,
});

/** One track as the listing shows it: the facts a scheduler filters and sorts on. */
export const TrackSummary = Type.Object({
  entityId: Uuid,
  entityType: EntityTypeName,
  title: Type.String(),
  artist: nullable(Type.String()),
  externalReferences: Type.Object({ dmrn: nullable(DmrnValue) }),
  audioVersion: TrackAudioVersion,
  durationMs: nullable(Type.Integer({ minimum: 0 }), "the primary audio file's duration once known"),
  bpm: nullable(Type.Number({ minimum: 0 }), 'tempo analysis; null until analysed or when no steady beat was found'),
  key: nullable(Type.String(), "key analysis, e.g. 'A minor'"),
  camelot: nullable(Type.String(), "the key in Camelot notation, e.g. '8A'"),
  integratedLufs: nullable(Type.Number(), 'loudness analysis: integrated loudness (LUFS)'),
  updatedAt: Type.String({
    format: 'date-time',
    description: 'the newest change of the entity, its versions or its analyses (the same after a rebuild of the library)',
  }),
});
export type TrackSummary = Static<typeof TrackSummary>;

/** The primary version of one kind, with its markers and where its file is downloaded. */
export const TrackVersion = Type.Object({
  id: Uuid,
  label: Type.String(),
  versionType: VersionTypeSchema,
  durationMs: nullable(Type.Integer({ minimum: 0 })),
  markers: Type.Array(Marker),
  asset: Type.Object({ id: Uuid, status: AssetStatusSchema, contentType: Type.String() }),
  downloadPath: Type.String({ description: 'GET it with a key that has catalog:api: /api/v1/catalog/assets/{assetId}/download' }),
});
export type TrackVersion = Static<typeof TrackVersion>;

const analysedBy = {
  jobId: Uuid,
  analyzedAt: Timestamp,
  resultPath: Type.String({ description: 'the whole analysis job: /api/v1/catalog/analyses/{jobId} (catalog:analysis)' }),
};

const Ms = nullable(Type.Integer({ minimum: 0 }));
const Db = nullable(Type.Number());

/** The facts of the newest successful analysis of each type of the primary audio file (null: none yet). */
export const TrackAnalysis = Type.Object({
  tempo: nullable(
    Type.Object({ bpm: nullable(Type.Number()), confidence: Type.Number(), firstBeatMs: Ms, firstDownbeatMs: Ms, ...analysedBy }),
  ),
  key: nullable(
    Type.Object({
      key: nullable(Type.String()),
      tonic: nullable(Type.String()),
      mode: nullable(Type.String()),
      camelot: nullable(Type.String()),
      strength: Type.Number(),
      ...analysedBy,
    }),
  ),
  loudness: nullable(
    Type.Object({
      integratedLufs: Db,
      loudnessRangeLu: Db,
      truePeakDbtp: Db,
      samplePeakDbfs: Db,
      maxMomentaryLufs: Db,
      maxShortTermLufs: Db,
      ...analysedBy,
    }),
  ),
  cuePoints: nullable(Type.Object({ cueInMs: Ms, introEndMs: Ms, outroStartMs: Ms, nextTrackStartMs: Ms, cueOutMs: Ms, ...analysedBy })),
  waveform: Type.Object({
    available: Type.Boolean({ description: 'a waveform was computed; read it with resultPath' }),
    jobId: nullable(Uuid),
    analyzedAt: nullable(Timestamp),
    resultPath: nullable(Type.String()),
  }),
  technical: nullable(
    Type.Object({
      container: Type.String(),
      codec: Type.String(),
      sampleRate: Type.Integer(),
      channels: Type.Integer(),
      bitDepth: nullable(Type.Integer()),
      bitrate: nullable(Type.Integer()),
      durationMs: Ms,
      ...analysedBy,
    }),
  ),
});
export type TrackAnalysis = Static<typeof TrackAnalysis>;

/** One track with everything the library knows of it. */
export const Track = Type.Composite([
  TrackSummary,
  Type.Object({
    versions: Type.Object(
      { AUDIO: TrackVersion, ARTWORK: nullable(TrackVersion), VIDEO: nullable(TrackVersion) },
      { description: 'the primary version of each kind (null: the entity has none of that kind)' },
    ),
    analysis: TrackAnalysis,
    relations: Type.Array(TrackRelation, {
      maxItems: MAX_TRACK_RELATIONS,
      description:
        'relations of the entity, both directions, oldest first: the first 100 (hasMoreRelations); all of them: GET /api/v1/catalog/entities/{entityId}/relations',
    }),
    hasMoreRelations: Type.Boolean({ description: 'the entity has more relations than `relations` shows' }),
  }),
]);
export type Track = Static<typeof Track>;

export const TRACK_SORTS = ['relevance', 'title', 'artist', 'bpm', 'duration', 'updated'] as const;
export type TrackSort = (typeof TRACK_SORTS)[number];

/** Keys as `key` takes them: a key name (`A minor`, `F# major`, `Bb minor`) or a Camelot code (`8A`). */
const KEY_PATTERN = '^ *([A-Ga-g][#b]? +(major|minor|maj|min)|(1[0-2]|[1-9])[ABab]) *$';

/**
 * Longest track cursor (decision 0116): it holds its track's folded title or artist (500
 * characters, decomposed: up to ~4.5 KB of UTF-8 for Hangul), signed and base64url-encoded.
 */
export const MAX_TRACK_CURSOR_LENGTH = 8192;

export const ListTracksQuery = Type.Object(
  {
    q: Type.Optional(
      Line(1, 200, 'words of the title or artist; accents and case ignored; the last word also matches as a prefix (type-ahead)'),
    ),
    bpmMin: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
    bpmMax: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
    key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: `^(${KEY_PATTERN.slice(1, -1)})(,(${KEY_PATTERN.slice(1, -1)}))*$`,
        description: "comma-separated keys: names ('A minor', 'F# major') or Camelot codes ('8A')",
      }),
    ),
    harmonic: Type.Optional(
      Type.Boolean({ description: 'with key: also the Camelot-compatible keys (same number, and one step either way in the same mode)' }),
    ),
    loudnessMin: Type.Optional(Type.Number({ minimum: -100, maximum: 20, description: 'integrated loudness at least (LUFS)' })),
    loudnessMax: Type.Optional(Type.Number({ minimum: -100, maximum: 20, description: 'integrated loudness at most (LUFS)' })),
    durationMinMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
    durationMaxMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
    entityType: Type.Optional(EntityTypeName),
    hasDmrn: Type.Optional(Type.Boolean()),
    relatedTo: Type.Optional(
      Type.String({
        format: 'uuid',
        pattern: Uuid.pattern!,
        description: 'an entity id: only the tracks that have a relation (any type, either direction) with that entity (decision 0136)',
      }),
    ),
    integrationId: Type.Optional(Uuid),
    syncState: Type.Optional(
      Type.Union(SyncStateSchema.anyOf, {
        description: 'the tracks assigned to a playout integration (integrationId, or any) in this sync state (decision 0132)',
      }),
    ),
    updatedSince: Type.Optional(Timestamp),
    sort: Type.Optional(
      Type.Union(
        TRACK_SORTS.map((s) => Type.Literal(s)),
        { description: 'relevance (needs q; the default with q), title (the default without q), artist, bpm, duration, updated' },
      ),
    ),
    order: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        description: 'asc by default, desc for updated; relevance is always best first. Tracks without the value come last.',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    after: Type.Optional(Cursor(MAX_TRACK_CURSOR_LENGTH, 'nextCursor of a previous page of the same sort and order')),
  },
  { additionalProperties: false },
);
export type ListTracksQuery = Static<typeof ListTracksQuery>;

export const TracksPage = Type.Object({
  tracks: Type.Array(TrackSummary),
  nextCursor: nullable(Type.String(), 'pass as `after` for the next page; null when there is none'),
  hasMore: Type.Boolean(),
});
export type TracksPage = Static<typeof TracksPage>;

export const TrackParams = Type.Object({ entityId: Uuid });

/** The internal listing of the tenants that have entities (the library's rebuild). */
export const ListEntityTenantsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500 })),
    after: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type ListEntityTenantsQuery = Static<typeof ListEntityTenantsQuery>;

export const EntityTenantsPage = Type.Object({
  tenants: Type.Array(Uuid),
  nextCursor: nullable(Uuid, 'the last tenant of the page; pass as `after`'),
  hasMore: Type.Boolean(),
});
export type EntityTenantsPage = Static<typeof EntityTenantsPage>;

/** Most entities one `readEntities` call names (each at most ~5 KB as JSON, so an answer stays far below NATS' 1 MB). */
export const READ_ENTITIES_MAX = 50;

export const ReadEntitiesBody = Type.Object(
  { ids: Type.Array(Uuid, { minItems: 1, maxItems: READ_ENTITIES_MAX, uniqueItems: true }) },
  { additionalProperties: false },
);
export type ReadEntitiesBody = Static<typeof ReadEntitiesBody>;

export const EntitiesRead = Type.Object({
  entities: Type.Array(Entity, { description: 'the entities found, in the order asked' }),
  missing: Type.Array(Uuid, { description: 'the ids the tenant has no entity of (deleted)' }),
});
export type EntitiesRead = Static<typeof EntitiesRead>;
