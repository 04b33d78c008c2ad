import { ENTITY_FIELDS, type EntityField } from '@catalog/contracts';
import type { EntityChanges, EntityRow } from '../persistence/entities.js';

/** The order in which `changedFields` names fields: the order of the event registry. */
export const ENTITY_FIELD_ORDER: readonly EntityField[] = ENTITY_FIELDS;

export interface EntityPatch {
  type?: string | undefined;
  title?: string | undefined;
  artist?: string | null | undefined;
}

/**
 * Compares a PATCH with the stored entity: returns only the columns whose value actually changes
 * and the public names of the changed fields, in registry order. Absent fields are left alone.
 */
export function diffEntityPatch(current: EntityRow, patch: EntityPatch): { changes: EntityChanges; changedFields: EntityField[] } {
  const changes: EntityChanges = {};
  if (patch.type !== undefined && patch.type !== current.type) changes.type = patch.type;
  if (patch.title !== undefined && patch.title !== current.title) changes.title = patch.title;
  if (patch.artist !== undefined && patch.artist !== current.artist) changes.artist = patch.artist;
  const changedFields = ENTITY_FIELD_ORDER.filter((field) => field !== 'externalReferences' && field in changes);
  return { changes, changedFields };
}
