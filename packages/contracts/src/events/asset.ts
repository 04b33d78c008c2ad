import { Type } from '@sinclair/typebox';
import { AssetRetentionSchema, AssetStatusSchema, StoredAssetKindSchema } from '../schemas/assets.js';
import { Uuid } from '../schemas/common.js';
import type { EventTypeDefinition } from './types.js';

/**
 * The facts every asset event carries, so a consumer (the catalog's versions) can keep the upload
 * status of a file without calling back: the status after the change and the file's small facts.
 */
const assetFacts = {
  status: AssetStatusSchema,
  retention: AssetRetentionSchema,
  kind: StoredAssetKindSchema,
  contentType: Type.String(),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'declared bytes before confirmation, stored bytes after' }),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  entityId: Type.Union([Uuid, Type.Null()], { description: 'null for standalone files' }),
};

const reason = Type.String({ description: 'snake_case reason code' });

/** Events of the assets family (resourceKind `asset`, resourceId the asset id, dmrn null). */
export const assetEvents = [
  {
    type: 'asset.created',
    product: 'catalog',
    resourceKind: 'asset',
    schemaVersion: 1,
    description: 'An asset was created and awaits its upload (status PENDING_UPLOAD).',
    data: Type.Object(assetFacts),
  },
  {
    type: 'asset.upload_requested',
    product: 'catalog',
    resourceKind: 'asset',
    schemaVersion: 1,
    description: 'A new upload target was issued for an asset that was not ONLINE; it is PENDING_UPLOAD again.',
    data: Type.Object(assetFacts),
  },
  {
    type: 'asset.confirmed',
    product: 'catalog',
    resourceKind: 'asset',
    schemaVersion: 1,
    description: 'The upload was confirmed: the asset is ONLINE with its stored size (and duration for audio).',
    data: Type.Object(assetFacts),
  },
  {
    type: 'asset.failed',
    product: 'catalog',
    resourceKind: 'asset',
    schemaVersion: 1,
    description: 'Confirmation found bytes that do not match the declaration (or unreadable audio): the asset is FAILED.',
    data: Type.Object({ ...assetFacts, reason }),
  },
  {
    type: 'asset.attached',
    product: 'catalog',
    resourceKind: 'asset',
    schemaVersion: 1,
    description: 'An asset became the file of a version: retention is now attached and it no longer expires.',
    data: Type.Object(assetFacts),
  },
  {
    type: 'asset.released',
    product: 'catalog',
    resourceKind: 'asset',
    schemaVersion: 1,
    description:
      'The version whose file this was (`versionId`) was deleted, on its own or with its entity: retention is standalone again, entityId null, and it expires like a standalone file unless a version uses it first.',
    data: Type.Object({ ...assetFacts, versionId: Uuid }),
  },
  {
    type: 'asset.expired',
    product: 'catalog',
    resourceKind: 'asset',
    schemaVersion: 1,
    description: 'A standalone file reached the end of its retention, or an upload was never confirmed: EXPIRED, bytes removed.',
    data: Type.Object({ ...assetFacts, reason: Type.Union([Type.Literal('retention_elapsed'), Type.Literal('upload_not_confirmed')]) }),
  },
] as const satisfies readonly EventTypeDefinition[];
