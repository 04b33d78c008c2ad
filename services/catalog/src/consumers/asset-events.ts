import { ASSET_KINDS, ASSET_STATUSES, type AssetKind, type AssetStatus } from '@catalog/contracts';
import type { BusEvent, EventPosition, Kysely } from '@catalog/platform';
import { applyAssetEventFacts, type AssetEventOutcome } from '../domain/file-states.js';
import type { AssetFacts } from '../persistence/asset-states.js';
import type { CatalogDb } from '../persistence/tables.js';

const countOrNull = (value: unknown): value is number | null => value === null || (Number.isSafeInteger(value) && (value as number) >= 0);

/**
 * The facts every asset event carries (contracts/events/asset.ts: status, kind, contentType, size,
 * durationMs); further fields are additive payload extensions and are ignored here.
 */
function assetFactsOf(data: Record<string, unknown>): AssetFacts | null {
  const { status, kind, contentType, size, durationMs } = data;
  if (!(ASSET_STATUSES as readonly unknown[]).includes(status) || !(ASSET_KINDS as readonly unknown[]).includes(kind)) return null;
  if (typeof contentType !== 'string' || !countOrNull(size) || !countOrNull(durationMs)) return null;
  return { status: status as AssetStatus, kind: kind as AssetKind, contentType, size, durationMs };
}

/**
 * Applies one asset event (delivered at `position` of the events stream) to the asset facts the
 * catalog keeps (`applyAssetEventFacts`). Events that are not about an asset, or whose facts do
 * not parse, are ignored.
 */
export async function applyAssetEvent(
  db: Kysely<CatalogDb>,
  event: BusEvent,
  position: EventPosition,
): Promise<AssetEventOutcome | 'ignored'> {
  const facts = assetFactsOf(event.data);
  if (event.resourceKind !== 'asset' || event.resourceId === null || facts === null) return 'ignored';
  return applyAssetEventFacts({ db }, event, { assetId: event.resourceId, facts, position, occurredAt: new Date(event.occurredAt) });
}
