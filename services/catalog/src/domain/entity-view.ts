import type { Entity } from '@catalog/contracts';
import type { EntityRow } from '../persistence/entities.js';

/** The public JSON of an entity. Versions come later; until then no entity has a primary audio version. */
export function entityView(row: EntityRow): Entity {
  return {
    id: row.id,
    type: row.type,
    title: row.title,
    artist: row.artist,
    externalReferences: { dmrn: row.dmrn },
    primaryAudioVersion: null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
