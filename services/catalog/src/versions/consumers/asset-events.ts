import { eventTypes, type AssetStatus, type StoredAssetKind } from '@catalog/contracts';
import { eventDataIssues, type BusEvent, type EventPosition, type Kysely } from '@catalog/platform';
import { applyAssetEventFacts, type AssetEventOutcome } from '../domain/file-states.js';
import type { AssetFacts } from '../persistence/asset-states.js';
import type { CatalogDb } from '../../persistence/tables.js';

/** The asset event types the contracts register (contracts/events/asset.ts). */
const ASSET_EVENT_TYPES: ReadonlySet<string> = new Set(eventTypes.filter((e) => e.resourceKind === 'asset').map((e) => e.type));

/**
 * The facts every asset event carries (status, kind, contentType, size, durationMs), when its data
 * matches its registered schema; further fields are additive payload extensions and are ignored here.
 * A DATA file (an import job's, decision 0134) is never a version's: its events are not kept.
 */
function assetFactsOf(event: BusEvent): AssetFacts | null {
  if (!ASSET_EVENT_TYPES.has(event.type) || eventDataIssues(event.type, event.data).length > 0) return null;
  const { status, kind, contentType, size, durationMs } = event.data as {
    status: AssetStatus;
    kind: StoredAssetKind;
    contentType: string;
    size: number | null;
    durationMs: number | null;
  };
  return kind === 'DATA' ? null : { status, kind, contentType, size, durationMs };
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
  const facts = assetFactsOf(event);
  if (event.resourceKind !== 'asset' || event.resourceId === null || facts === null) return 'ignored';
  return applyAssetEventFacts({ db }, event, { assetId: event.resourceId, facts, position, occurredAt: new Date(event.occurredAt) });
}
