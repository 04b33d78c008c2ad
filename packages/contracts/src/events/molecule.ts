import { Type } from '@sinclair/typebox';
import { MAX_MOLECULE_ELEMENTS } from '../schemas/molecules.js';
import type { EventTypeDefinition } from './types.js';

export const MOLECULE_FIELDS = ['title', 'elements'] as const;
export type MoleculeField = (typeof MOLECULE_FIELDS)[number];

/** Why a molecule went away. */
export const MOLECULE_DELETE_REASONS = ['deleted', 'entity_deleted'] as const;
export type MoleculeDeleteReason = (typeof MOLECULE_DELETE_REASONS)[number];

const ElementCount = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_MOLECULE_ELEMENTS, description });

/**
 * Events of the molecules family (decision 0137). A molecule has no external reference: dmrn is
 * null. Its timeline follows its entities' primary versions on read and records no event of its own.
 */
export const moleculeEvents = [
  {
    type: 'molecule.created',
    product: 'catalog',
    resourceKind: 'molecule',
    schemaVersion: 1,
    description: 'A molecule was created.',
    data: Type.Object({ elementCount: ElementCount('elements it has') }),
  },
  {
    type: 'molecule.updated',
    product: 'catalog',
    resourceKind: 'molecule',
    schemaVersion: 1,
    description:
      'The title or the elements of a molecule changed (`changedFields`); elements also change when an entity they play is deleted (its elements are removed).',
    data: Type.Object({
      changedFields: Type.Array(Type.Union(MOLECULE_FIELDS.map((f) => Type.Literal(f))), { minItems: 1 }),
      elementCount: ElementCount('elements it has now'),
    }),
  },
  {
    type: 'molecule.deleted',
    product: 'catalog',
    resourceKind: 'molecule',
    schemaVersion: 1,
    description:
      'A molecule was deleted: on its own (`deleted`), or because the entity of its last elements was deleted (`entity_deleted`).',
    data: Type.Object({
      elementCount: ElementCount('elements it had when it was deleted'),
      reason: Type.Union(MOLECULE_DELETE_REASONS.map((r) => Type.Literal(r))),
    }),
  },
] as const satisfies readonly EventTypeDefinition[];
