import type { Transaction } from 'kysely';
import type { EventData, EventTypeName } from '@catalog/contracts';
import { outboxFor, type OutboxContext, type OutboxEvent } from '@catalog/platform';
import type { AssetRow } from './assets.js';
import type { AssetDb } from './tables.js';

export type AssetEventType = Extract<EventTypeName, `asset.${string}`>;

/** The small facts every asset event carries (see contracts/events/asset.ts). */
type AssetFacts = EventData<'asset.created'>;

/** What an event of type `T` says besides the facts (`reason`, `versionId`), as its contract has it. */
type AssetEventExtra<T extends AssetEventType> = Omit<EventData<T>, keyof AssetFacts>;

function intOrNull(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

function assetFacts(row: AssetRow): AssetFacts {
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
 * Records an asset event in the outbox, in the transaction of the write it describes: resource
 * the asset, the facts of `row`, and what the type adds (`extra`, typed by the contract; none for
 * most). `writer` is who wrote: `public-api:<keyId>` (or the bound source system),
 * `system:asset-retention`, or for a release the writer of the version's deletion.
 */
export async function recordAssetEvent<T extends AssetEventType>(
  trx: Transaction<AssetDb>,
  writer: OutboxContext,
  type: T,
  row: AssetRow,
  ...[extra]: keyof AssetEventExtra<T> extends never ? [] : [extra: AssetEventExtra<T>]
): Promise<void> {
  // The facts and the extra make the type's data (the registry checks it again when recording).
  const event = { type, resourceId: row.id, dmrn: null, data: { ...assetFacts(row), ...extra } } as OutboxEvent;
  await outboxFor(trx, 'asset', writer).record(event);
}
