import { Type } from '@sinclair/typebox';
import { Uuid } from '../schemas/common.js';
import { RelationTypeSchema } from '../schemas/relations.js';
import type { EventTypeDefinition } from './types.js';

const RelationFacts = Type.Object({
  type: RelationTypeSchema,
  sourceId: Uuid,
  targetId: Uuid,
});

/**
 * Events of the relations family (decision 0136): resourceId is the relation, dmrn null (a
 * relation has no external reference); `data` names its type and its two entities.
 */
export const relationEvents = [
  {
    type: 'relation.created',
    product: 'catalog',
    resourceKind: 'relation',
    schemaVersion: 1,
    description: 'A relation between two entities of the tenant was created (sourceId is the entity it is said of).',
    data: RelationFacts,
  },
  {
    type: 'relation.deleted',
    product: 'catalog',
    resourceKind: 'relation',
    schemaVersion: 1,
    description:
      'A relation was deleted, on its own or with one of its entities (each relation of a deleted entity has its event, before entity.deleted).',
    data: RelationFacts,
  },
] as const satisfies readonly EventTypeDefinition[];
