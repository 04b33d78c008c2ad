import { Type, type Static } from '@sinclair/typebox';
import { DOCUMENTED_ONLY, Timestamp, Uuid } from './common.js';

/** Content kinds of versions and assets; an asset's kind follows from its content type. */
export const ASSET_KINDS = ['AUDIO', 'ARTWORK', 'VIDEO'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];
export const AssetKindSchema = Type.Union(ASSET_KINDS.map((k) => Type.Literal(k)));

/**
 * What the asset service stores: the kinds of versions' files, and `DATA`, a file of records an
 * import job reads (JSON Lines or CSV; standalone only, never a version's file; decision 0134).
 */
export const STORED_ASSET_KINDS = [...ASSET_KINDS, 'DATA'] as const;
export type StoredAssetKind = (typeof STORED_ASSET_KINDS)[number];
export const StoredAssetKindSchema = Type.Union(STORED_ASSET_KINDS.map((k) => Type.Literal(k)));

export const ASSET_STATUSES = ['PENDING_UPLOAD', 'ONLINE', 'FAILED', 'EXPIRED'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];
export const AssetStatusSchema = Type.Union(ASSET_STATUSES.map((s) => Type.Literal(s)));

/**
 * `standalone`: a temporary file that belongs to no entity, removed after the retention period.
 * `attached`: a file kept for as long as the catalog uses it (a version's file).
 */
const ASSET_RETENTIONS = ['standalone', 'attached'] as const;
export type AssetRetention = (typeof ASSET_RETENTIONS)[number];
export const AssetRetentionSchema = Type.Union(ASSET_RETENTIONS.map((r) => Type.Literal(r)));

/** `sha256:` and 64 hex digits: the SHA-256 of the file's bytes. */
export const Checksum = Type.String({ pattern: '^sha256:[0-9a-fA-F]{64}$', description: 'sha256:<64 hex digits> of the bytes' });
/**
 * Content types accepted per kind (decision 0023): the kind follows from the type's top level
 * (audio/* → AUDIO, image/* → ARTWORK, video/* → VIDEO); within it only formats a broadcast chain
 * handles. DATA: the files of import jobs, standalone only (decision 0134). The asset service
 * refuses others with 415.
 */
export const ALLOWED_CONTENT_TYPES: Record<StoredAssetKind, readonly string[]> = {
  AUDIO: [
    'audio/mpeg',
    'audio/mp3',
    'audio/wav',
    'audio/wave',
    'audio/x-wav',
    'audio/vnd.wave',
    'audio/flac',
    'audio/x-flac',
    'audio/aac',
    'audio/mp4',
    'audio/x-m4a',
    'audio/ogg',
    'audio/opus',
    'audio/aiff',
    'audio/x-aiff',
    'audio/webm',
  ],
  ARTWORK: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/tiff', 'image/avif'],
  VIDEO: ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-matroska', 'video/mpeg'],
  DATA: ['application/x-ndjson', 'text/csv'],
};

export const ContentType = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$',
  description: 'MIME type without parameters, compared case-insensitively: one of the accepted types (others: 415)',
  [DOCUMENTED_ONLY]: { enum: Object.values(ALLOWED_CONTENT_TYPES).flat() },
});
export const Filename = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[^\\u0000-\\u001f\\u007f/\\\\]+$',
  description: 'file name shown in Content-Disposition on download (no path)',
});

/** What the client is about to upload. */
export const UploadDescription = Type.Object(
  {
    filename: Filename,
    contentType: ContentType,
    size: Type.Optional(Type.Integer({ minimum: 1, description: 'bytes; the upload must have exactly this length' })),
    checksum: Type.Optional(Checksum),
  },
  { additionalProperties: false },
);
export type UploadDescription = Static<typeof UploadDescription>;

/** A signed upload target: send the bytes with `method` to `url` with exactly `headers`. */
export const UploadTarget = Type.Object({
  url: Type.String({ description: 'signed URL; it is the credential, keep it private' }),
  method: Type.Literal('PUT'),
  headers: Type.Record(Type.String(), Type.String()),
  expiresAt: Timestamp,
});
export type UploadTarget = Static<typeof UploadTarget>;

export const AssetFailure = Type.Object({ code: Type.String(), message: Type.String() });

export const Asset = Type.Object({
  id: Uuid,
  status: AssetStatusSchema,
  retention: AssetRetentionSchema,
  kind: StoredAssetKindSchema,
  filename: Type.String(),
  contentType: Type.String(),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'declared bytes until confirmed, then the stored length' }),
  checksum: Type.Union([Checksum, Type.Null()], { description: "declared until confirmed, then the stored bytes' sha256" }),
  durationMs: Type.Union([Type.Integer(), Type.Null()], { description: 'AUDIO: read from the file at confirmation' }),
  entityId: Type.Union([Uuid, Type.Null()], { description: 'the entity whose version uses the file, when known' }),
  failure: Type.Union([AssetFailure, Type.Null()], { description: 'why the asset is FAILED or EXPIRED' }),
  expiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'when the asset becomes EXPIRED unless something happens first (confirmation, attachment)',
  }),
  confirmedAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Asset = Static<typeof Asset>;

export const CreateAssetBody = Type.Object({ retention: AssetRetentionSchema, upload: UploadDescription }, { additionalProperties: false });
export type CreateAssetBody = Static<typeof CreateAssetBody>;

/** `POST assets/{id}/confirm` takes nothing: no body, or an empty object (`{}`), as generic clients send. */
export const ConfirmAssetBody = Type.Object({}, { additionalProperties: false });
export type ConfirmAssetBody = Static<typeof ConfirmAssetBody>;

/** The create and new-upload responses: the asset, its id as `assetId`, and the upload target. */
export const AssetWithUpload = Type.Intersect([Asset, Type.Object({ assetId: Uuid, upload: UploadTarget })]);
export type AssetWithUpload = Static<typeof AssetWithUpload>;

/**
 * The version whose file the asset becomes (its id is made by the catalog before the call): when
 * that version is deleted, the asset is released (decision 0022). Without it the asset is never
 * released.
 */
const VersionIdOfAsset = Type.Optional(Uuid);

/**
 * Internal (service-to-service over NATS, never public): the catalog creates an asset for a
 * version's upload with the entity and the version it belongs to.
 */
export const CreateAssetRpcBody = Type.Object(
  { retention: AssetRetentionSchema, upload: UploadDescription, entityId: Type.Optional(Uuid), versionId: VersionIdOfAsset },
  { additionalProperties: false },
);
export type CreateAssetRpcBody = Static<typeof CreateAssetRpcBody>;

/** Internal: the catalog makes an existing asset a version's file (it stops expiring). */
export const AttachAssetRpcBody = Type.Object(
  { entityId: Type.Optional(Uuid), versionId: VersionIdOfAsset },
  { additionalProperties: false },
);
export type AttachAssetRpcBody = Static<typeof AttachAssetRpcBody>;

/**
 * Internal: the catalog releases an asset it attached to version `versionId` when that version was
 * never written (its transaction failed after the attach): released only if the asset is still that
 * version's file, as when the version is deleted.
 */
export const ReleaseAssetRpcBody = Type.Object({ versionId: Uuid }, { additionalProperties: false });
export type ReleaseAssetRpcBody = Static<typeof ReleaseAssetRpcBody>;
