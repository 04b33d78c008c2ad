import type { Asset } from '@catalog/contracts';
import type { AssetRow } from '../persistence/assets.js';

function iso(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

/** The public JSON of an asset. */
export function assetJson(row: AssetRow): Asset {
  const size = row.size ?? row.declared_size;
  const sha256 = row.sha256 ?? row.declared_sha256;
  return {
    id: row.id,
    status: row.status,
    retention: row.retention,
    kind: row.kind,
    filename: row.filename,
    contentType: row.content_type,
    size: size === null ? null : Number(size),
    checksum: sha256 === null ? null : `sha256:${sha256}`,
    durationMs: row.duration_ms,
    entityId: row.entity_id,
    failure: row.failure_code === null ? null : { code: row.failure_code, message: row.failure_message ?? row.failure_code },
    expiresAt: iso(row.expires_at),
    confirmedAt: iso(row.confirmed_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
