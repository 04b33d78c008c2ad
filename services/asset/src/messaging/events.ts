import type { Transaction } from 'kysely';
import { outboxFor } from '@catalog/platform';
import { eventType } from '@catalog/contracts';
import type { AssetRow } from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';

export type AssetEventType =
  'asset.created' | 'asset.upload_requested' | 'asset.confirmed' | 'asset.failed' | 'asset.attached' | 'asset.released' | 'asset.expired';

/**
 * Who wrote: `public-api:<keyId>` (or the bound source system), `system:asset-retention`, or for
 * a release the writer of the version's deletion.
 */
export interface Writer {
  tenantId: string;
  sourceSystem: string;
}

export const RETENTION_SOURCE_SYSTEM = 'system:asset-retention';

function intOrNull(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

/** The small facts every asset event carries (see contracts/events/asset.ts). */
export function assetFacts(row: AssetRow): Record<string, unknown> {
  return {
    status: row.status,
    retention: row.retention,
    kind: row.kind,
    contentType: row.content_type,
    size: intOrNull(row.size ?? row.declared_size),
    durationMs: row.duration_ms,
    entityId: row.entity_id,
  };
}

/** Records an asset event in the outbox, in the transaction of the write it describes. */
export async function recordAssetEvent(
  trx: Transaction<AssetDb>,
  writer: Writer,
  type: AssetEventType,
  row: AssetRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const definition = eventType(type);
  await outboxFor(trx, 'asset', writer).record({
    type,
    resourceKind: definition.resourceKind,
    resourceId: row.id,
    dmrn: null,
    schemaVersion: definition.schemaVersion,
    data: { ...assetFacts(row), ...extra },
  });
}
