import { Type, type Static } from '@sinclair/typebox';
import { ASSET_KINDS, AssetKindSchema, AssetStatusSchema, UploadDescription, UploadTarget, type AssetKind } from './assets.js';
import { Line, PageAfter, Timestamp, Uuid } from './common.js';

/**
 * Versions of an entity: one content item (an audio edit, an artwork, a video) with its own file.
 * See docs/decisions/0024-versions.md for the rules these schemas carry.
 */

/** A version's kind is the kind of its file: AUDIO, ARTWORK or VIDEO. */
export const VERSION_KINDS = ASSET_KINDS;
export const VersionKindSchema = AssetKindSchema;

/** The version types a radio catalog uses, per kind; `other` is allowed for every kind. */
export const VERSION_TYPES_BY_KIND = {
  AUDIO: [
    'radio_edit',
    'full_length',
    'extended_mix',
    'remix',
    'instrumental',
    'acapella',
    'clean',
    'explicit',
    'live',
    'acoustic',
    'intro_edit',
    'station_intro',
    'teaser',
    'other',
  ],
  ARTWORK: ['cover_art', 'artist_photo', 'station_artwork', 'other'],
  VIDEO: ['video_clip', 'lyric_video', 'live', 'teaser', 'other'],
} as const satisfies Record<AssetKind, readonly string[]>;

const VERSION_TYPES = [...new Set(Object.values(VERSION_TYPES_BY_KIND).flat())] as Array<(typeof VERSION_TYPES_BY_KIND)[AssetKind][number]>;
export type VersionType = (typeof VERSION_TYPES)[number];
export const VersionTypeSchema = Type.Union(
  VERSION_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'AUDIO: radio_edit, full_length, extended_mix, remix, instrumental, acapella, clean, explicit, live, acoustic, intro_edit, station_intro, teaser; ARTWORK: cover_art, artist_photo, station_artwork; VIDEO: video_clip, lyric_video, live, teaser; `other` for any kind',
  },
);

/**
 * Marker types, positions in milliseconds from the start of the file. The singular ones appear at
 * most once per version; `custom` may repeat and needs a label.
 */
export const SINGULAR_MARKER_TYPES = ['cue_in', 'intro_end', 'hook_start', 'hook_end', 'outro_start', 'segue', 'cue_out'] as const;
export const MARKER_TYPES = [...SINGULAR_MARKER_TYPES, 'custom'] as const;
export type MarkerType = (typeof MARKER_TYPES)[number];
export const MarkerTypeSchema = Type.Union(MARKER_TYPES.map((t) => Type.Literal(t)));

/** 24 hours: no broadcast file is longer. */
const MAX_MARKER_POSITION_MS = 24 * 3600 * 1000;
const MAX_MARKERS = 100;

export const Marker = Type.Object(
  {
    type: MarkerTypeSchema,
    positionMs: Type.Integer({ minimum: 0, maximum: MAX_MARKER_POSITION_MS, description: 'milliseconds from the start of the file' }),
    label: Type.Optional(Line(1, 100, 'required for `custom`, optional otherwise')),
  },
  { additionalProperties: false },
);
export type Marker = Static<typeof Marker>;

export const PutMarkersBody = Type.Object(
  { markers: Type.Array(Marker, { maxItems: MAX_MARKERS, description: 'the whole set; replaces the markers the version had' }) },
  { additionalProperties: false },
);
export type PutMarkersBody = Static<typeof PutMarkersBody>;

/** The file of a version as the catalog knows it (kept up to date from asset events). */
export const VersionAsset = Type.Object({
  id: Uuid,
  status: AssetStatusSchema,
  contentType: Type.String(),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'declared bytes until confirmed, then the stored length' }),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
});
export type VersionAsset = Static<typeof VersionAsset>;

export const Version = Type.Object({
  id: Uuid,
  entityId: Uuid,
  kind: VersionKindSchema,
  label: Type.String(),
  versionType: VersionTypeSchema,
  isPrimary: Type.Boolean({ description: 'exactly one version per kind of an entity is primary' }),
  durationMs: Type.Union([Type.Integer(), Type.Null()], { description: "the file's duration once known (AUDIO, after confirmation)" }),
  markers: Type.Array(Marker, { description: 'ordered by position' }),
  asset: VersionAsset,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Version = Static<typeof Version>;

/** The create response: the version, plus the signed upload target when the source is an upload. */
export const CreatedVersion = Type.Intersect([Version, Type.Object({ upload: Type.Optional(UploadTarget) })]);
export type CreatedVersion = Static<typeof CreatedVersion>;

/** Exactly one of `upload` (a new file) or `assetId` (an asset of the tenant created earlier). */
export const VersionSource = Type.Object(
  {
    upload: Type.Optional(UploadDescription),
    assetId: Type.Optional(Uuid),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1, description: 'exactly one of upload or assetId' },
);
export type VersionSource = Static<typeof VersionSource>;

const Label = Line(1, 200);

export const CreateVersionBody = Type.Object(
  {
    source: VersionSource,
    label: Label,
    versionType: VersionTypeSchema,
    kind: Type.Optional(
      Type.Union(
        ASSET_KINDS.map((k) => Type.Literal(k)),
        { description: 'derived from the content type when absent' },
      ),
    ),
    isPrimary: Type.Optional(
      Type.Boolean({ description: 'true demotes the current primary of the kind; the first version of a kind is primary anyway' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateVersionBody = Static<typeof CreateVersionBody>;

export const UpdateVersionBody = Type.Object(
  {
    label: Type.Optional(Label),
    versionType: Type.Optional(VersionTypeSchema),
    isPrimary: Type.Optional(
      Type.Literal(true, { description: 'make this version the primary of its kind (a primary is unset by choosing another)' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateVersionBody = Static<typeof UpdateVersionBody>;

/** Most versions one page of the listing asks for (decision 0052). */
const MAX_VERSIONS_PAGE = 500;

export const ListVersionsQuery = Type.Object(
  {
    kind: Type.Optional(VersionKindSchema),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_VERSIONS_PAGE,
        description: 'most versions in the page; without it, every version that fits one reply',
      }),
    ),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type ListVersionsQuery = Static<typeof ListVersionsQuery>;

/**
 * The listing: every version (of the kind) in one page unless they do not fit one reply (versions
 * with many long markers) or `limit` asks for fewer; then `hasMore` is true and `nextCursor`
 * continues (decision 0052).
 */
export const VersionList = Type.Object({
  versions: Type.Array(Version),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `after` for the next page; null when there is none' }),
  hasMore: Type.Boolean(),
});
export type VersionList = Static<typeof VersionList>;

export const VersionParams = Type.Object({ id: Uuid, versionId: Uuid });

/** On the entity: its primary AUDIO version while that version's file is ONLINE, else null. */
export const PrimaryAudioVersion = Type.Object({
  id: Uuid,
  label: Type.String(),
  versionType: VersionTypeSchema,
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  assetId: Uuid,
});
export type PrimaryAudioVersion = Static<typeof PrimaryAudioVersion>;
