import { Type } from '@sinclair/typebox';
import { EntityTypeName } from '../schemas/catalog.js';
import { Uuid } from '../schemas/common.js';
import type { EventTypeDefinition } from './types.js';

/**
 * The fields of a track whose change `track.updated` names (decision 0101): the entity's facts,
 * the primary audio version (`audioVersion`: another version or file; `markers`: its markers),
 * the other kinds' primaries (`versions`), the duration, each analysis and the entity's relations
 * (`relations`: one added or deleted, decision 0142).
 */
export const TRACK_FIELDS = [
  'entityType',
  'title',
  'artist',
  'externalReferences',
  'audioVersion',
  'markers',
  'versions',
  'durationMs',
  'tempo',
  'key',
  'loudness',
  'cuePoints',
  'waveform',
  'technical',
  'relations',
] as const;
export type TrackField = (typeof TRACK_FIELDS)[number];

/** Why a track left the library. */
export const TRACK_REMOVAL_REASONS = ['entity_deleted', 'no_primary_audio', 'audio_not_online'] as const;
export type TrackRemovalReason = (typeof TRACK_REMOVAL_REASONS)[number];

/**
 * Events of the library product (resourceKind `track`, resourceId the entity id, dmrn the
 * entity's), recorded by the library service as its projection changes; served by
 * `GET /api/v1/library/events`, never by the catalog feed.
 */
export const libraryEvents = [
  {
    type: 'track.added',
    product: 'library',
    resourceKind: 'track',
    schemaVersion: 1,
    description: 'An entity entered the library: it has a primary audio version whose file is ONLINE.',
    data: Type.Object({ entityType: EntityTypeName, audioVersionId: Uuid, assetId: Uuid }),
  },
  {
    type: 'track.updated',
    product: 'library',
    resourceKind: 'track',
    schemaVersion: 1,
    description: 'Facts of a track changed; `changedFields` names them (read the track for their values).',
    data: Type.Object({
      changedFields: Type.Array(Type.Union(TRACK_FIELDS.map((f) => Type.Literal(f))), { minItems: 1 }),
    }),
  },
  {
    type: 'track.removed',
    product: 'library',
    resourceKind: 'track',
    schemaVersion: 1,
    description:
      'A track left the library: its entity was deleted, has no primary audio version any more, or that version’s file is not ONLINE (`reason`).',
    data: Type.Object({ reason: Type.Union(TRACK_REMOVAL_REASONS.map((r) => Type.Literal(r))) }),
  },
] as const satisfies readonly EventTypeDefinition[];
