import { Type } from '@sinclair/typebox';
import { AnalysisTypeSchema } from '../schemas/analyses.js';
import { EntityTypeName } from '../schemas/catalog.js';
import { Uuid } from '../schemas/common.js';
import { MarkerTypeSchema, VersionKindSchema, VersionTypeSchema } from '../schemas/versions.js';
import type { EventTypeDefinition } from './types.js';

export const VERSION_FIELDS = ['label', 'versionType'] as const;
export type VersionField = (typeof VERSION_FIELDS)[number];

/** Why a version went away. */
export const VERSION_DELETE_REASONS = ['deleted', 'entity_deleted'] as const;

/**
 * Events of the versions and markers families. The dmrn of each is the entity's DMRN (null when it
 * has none); payloads hold ids and small facts, the current state is read from the version listing.
 */
export const versionEvents = [
  {
    type: 'version.created',
    product: 'catalog',
    resourceKind: 'version',
    schemaVersion: 1,
    description: 'A version was added to an entity.',
    data: Type.Object({
      entityId: Uuid,
      kind: VersionKindSchema,
      versionType: VersionTypeSchema,
      assetId: Uuid,
      isPrimary: Type.Boolean(),
    }),
  },
  {
    type: 'version.updated',
    product: 'catalog',
    resourceKind: 'version',
    schemaVersion: 1,
    description: 'The label or type of a version changed; `changedFields` names them. Primary changes are version.primary_changed.',
    data: Type.Object({
      entityId: Uuid,
      kind: VersionKindSchema,
      changedFields: Type.Array(Type.Union(VERSION_FIELDS.map((f) => Type.Literal(f))), { minItems: 1 }),
    }),
  },
  {
    type: 'version.deleted',
    product: 'catalog',
    resourceKind: 'version',
    schemaVersion: 1,
    description: 'A version was deleted, on its own or with its entity (`reason`).',
    data: Type.Object({
      entityId: Uuid,
      kind: VersionKindSchema,
      assetId: Uuid,
      reason: Type.Union(VERSION_DELETE_REASONS.map((r) => Type.Literal(r))),
    }),
  },
  {
    type: 'version.primary_changed',
    product: 'catalog',
    resourceKind: 'entity',
    schemaVersion: 1,
    description:
      'The primary version of one kind of an entity changed (resourceId is the entity). versionId null: the kind has no version left; previousVersionId null: it had none.',
    data: Type.Object({
      kind: VersionKindSchema,
      versionId: Type.Union([Uuid, Type.Null()]),
      previousVersionId: Type.Union([Uuid, Type.Null()]),
    }),
  },
  {
    type: 'markers.updated',
    product: 'catalog',
    resourceKind: 'version',
    schemaVersion: 1,
    description: 'The markers of a version were replaced; `types` lists the marker types it has now.',
    data: Type.Object({ entityId: Uuid, count: Type.Integer({ minimum: 0 }), types: Type.Array(MarkerTypeSchema) }),
  },
  {
    type: 'version.analyses_requested',
    product: 'catalog',
    resourceKind: 'version',
    schemaVersion: 1,
    description:
      "An AUDIO version's file is ONLINE and the entity type has automatic analyses: the analysis service runs `analysisTypes` on this version (once per version).",
    data: Type.Object({
      entityId: Uuid,
      assetId: Uuid,
      entityType: EntityTypeName,
      analysisTypes: Type.Array(AnalysisTypeSchema, { minItems: 1 }),
    }),
  },
] as const satisfies readonly EventTypeDefinition[];
