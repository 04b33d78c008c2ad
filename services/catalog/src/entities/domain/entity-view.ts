import type { Entity, VersionType } from '@catalog/contracts';
import type { EntityRow } from '../../persistence/entities.js';
import type { PrimaryAudioColumns } from '../persistence/entity-views.js';

/**
 * The public JSON of an entity. `primaryAudioVersion` is its primary AUDIO version while that
 * version's file is ONLINE, else null; rows without the joined columns (a new entity) have none.
 */
export function entityView(row: EntityRow & Partial<PrimaryAudioColumns>): Entity {
  return {
    id: row.id,
    type: row.type,
    title: row.title,
    artist: row.artist,
    externalReferences: { dmrn: row.dmrn },
    primaryAudioVersion:
      row.pav_id && row.pav_asset_id && row.pav_label !== null && row.pav_label !== undefined
        ? {
            id: row.pav_id,
            label: row.pav_label,
            versionType: row.pav_version_type as VersionType,
            durationMs: row.pav_duration_ms ?? null,
            assetId: row.pav_asset_id,
          }
        : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
