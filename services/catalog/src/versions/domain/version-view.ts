import type { AssetStatus, Marker, Version, VersionType } from '@catalog/contracts';
import type { VersionRecord } from '../persistence/versions.js';

const intOrNull = (value: string | number | null): number | null => (value === null ? null : Number(value));

/** The public JSON of a version with the facts of its file. */
export function versionView(record: VersionRecord): Version {
  return {
    id: record.id,
    entityId: record.entity_id,
    kind: record.kind,
    label: record.label,
    versionType: record.version_type as VersionType,
    isPrimary: record.is_primary,
    durationMs: record.asset_duration_ms,
    markers: record.markers as Marker[],
    asset: {
      id: record.asset_id,
      status: record.asset_status as AssetStatus,
      contentType: record.asset_content_type,
      size: intOrNull(record.asset_size),
      durationMs: record.asset_duration_ms,
    },
    createdAt: record.created_at.toISOString(),
    updatedAt: record.updated_at.toISOString(),
  };
}
