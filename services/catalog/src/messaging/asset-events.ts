import { ASSET_KINDS, ASSET_STATUSES, type AssetKind, type AssetStatus } from '@catalog/contracts';
import { inTenantTransaction, type BusEvent, type EventPosition, type Kysely } from '@catalog/platform';
import { applyAssetFacts, type AssetFacts } from '../persistence/asset-states.js';
import type { CatalogDb } from '../persistence/tables.js';
import { requestAnalysesOfFile } from '../domain/file-states.js';

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

export type AssetEventOutcome = 'applied' | 'stale' | 'ignored';

/**
 * Applies one asset event (delivered at `position` of the events stream) to the asset facts the
 * catalog keeps, in one transaction of the event's tenant:
 * - the facts replace the stored ones only if the position is newer than the event they came from, so a
 *   redelivery or an older event delivered late changes nothing (idempotent, order-safe);
 * - when the asset is the file of an AUDIO version and is now ONLINE, the entity type's automatic
 *   analyses are requested (once per version) in the same transaction; the confirmation usually
 *   brought them already (`recordAssetState`, decision 0115), and then this changes nothing.
 * Events that are not about an asset, or whose facts do not parse, are ignored.
 */
export async function applyAssetEvent(db: Kysely<CatalogDb>, event: BusEvent, position: EventPosition): Promise<AssetEventOutcome> {
  const facts = assetFactsOf(event.data);
  if (event.resourceKind !== 'asset' || event.resourceId === null || facts === null) return 'ignored';
  const assetId = event.resourceId;
  return inTenantTransaction(db, event.tenantId, async (trx) => {
    const state = await applyAssetFacts(trx, event.tenantId, assetId, facts, position, new Date(event.occurredAt));
    if (!state) return 'stale';
    await requestAnalysesOfFile(trx, { tenantId: event.tenantId, sourceSystem: event.sourceSystem }, state);
    return 'applied';
  });
}
