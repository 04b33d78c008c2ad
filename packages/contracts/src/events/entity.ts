import { Type } from '@sinclair/typebox';
import { AnalysisTypeSchema } from '../schemas/analyses.js';
import { EntityTypeName } from '../schemas/catalog.js';
import type { EventTypeDefinition } from './types.js';

export const ENTITY_FIELDS = ['type', 'title', 'artist', 'externalReferences'] as const;
export type EntityField = (typeof ENTITY_FIELDS)[number];

/** Events of the entities family. */
export const entityEvents = [
  {
    type: 'entity.created',
    product: 'catalog',
    resourceKind: 'entity',
    schemaVersion: 1,
    description: 'An entity was created.',
    data: Type.Object({ entityType: EntityTypeName }),
  },
  {
    type: 'entity.updated',
    product: 'catalog',
    resourceKind: 'entity',
    schemaVersion: 1,
    description: 'Fields of an entity changed; `changedFields` names them. Attaching or removing a DMRN gives ["externalReferences"].',
    data: Type.Object({ changedFields: Type.Array(Type.Union(ENTITY_FIELDS.map((f) => Type.Literal(f))), { minItems: 1 }) }),
  },
  {
    type: 'entity.deleted',
    product: 'catalog',
    resourceKind: 'entity',
    schemaVersion: 1,
    description: 'An entity was deleted.',
    data: Type.Object({}),
  },
  {
    type: 'entity_type.updated',
    product: 'catalog',
    resourceKind: 'entity_type',
    schemaVersion: 1,
    description: 'The configuration of an entity type changed (resourceId is null; the name is in data).',
    data: Type.Object({ name: EntityTypeName, automaticAnalyses: Type.Array(AnalysisTypeSchema), cuePointMarkers: Type.Boolean() }),
  },
] as const satisfies readonly EventTypeDefinition[];
