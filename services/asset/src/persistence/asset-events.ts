import type { Transaction } from 'kysely';
import { outboxFor, registeredEvent, type OutboxContext } from '@catalog/platform';
import type { AssetRow } from './assets.js';
import type { AssetDb } from './tables.js';

export type AssetEventType =
  'asset.created' | 'asset.upload_requested' | 'asset.confirmed' | 'asset.failed' | 'asset.attached' | 'asset.released' | 'asset.expired';

function intOrNull(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

/** The small facts every asset event carries (see contracts/events/asset.ts). */
function assetFacts(row: AssetRow): Record<string, unknown> {
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

/**
 * Records an asset event in the outbox, in the transaction of the write it describes, as the event
 * registry defines it (`registeredEvent`: resource kind and schema version from the registry, the
 * data checked against the registered schema). `writer` is who wrote: `public-api:<keyId>` (or the
 * bound source system), `system:asset-retention`, or for a release the writer of the version's deletion.
 */
export async function recordAssetEvent(
  trx: Transaction<AssetDb>,
  writer: OutboxContext,
  type: AssetEventType,
  row: AssetRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await outboxFor(trx, 'asset', writer).record(
    registeredEvent(type, { resourceId: row.id, dmrn: null, data: { ...assetFacts(row), ...extra } }),
  );
}
