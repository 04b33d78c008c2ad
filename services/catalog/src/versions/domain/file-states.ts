/**
 * The catalog's copy of the state of versions' files (decisions 0091, 0115): what the asset
 * service answers or announces is applied to `catalog.asset_states`, and the first time an AUDIO
 * version's file is ONLINE its entity type's automatic analyses are requested.
 */
import type { Asset } from '@catalog/contracts';
import { inTenantTransaction, outboxFor, type CallContext, type EventPosition, type Kysely, type Transaction } from '@catalog/platform';
import { applyAssetFacts, lockAssetState, recordAssetSnapshot, type AssetFacts, type AssetStateRow } from '../persistence/asset-states.js';
import { findEntity } from '../../persistence/entities.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { findVersionByAsset } from '../persistence/versions.js';
import { requestAutomaticAnalyses } from './automatic-analyses.js';
import { versionKindOfAsset } from './version-kinds.js';

/** The facts the catalog keeps of an asset, from the asset service's JSON of it. */
export function factsOf(asset: Asset): AssetFacts {
  return {
    status: asset.status,
    kind: versionKindOfAsset(asset),
    contentType: asset.contentType,
    size: asset.size,
    durationMs: asset.durationMs,
  };
}

/**
 * After an asset's facts were applied (its `asset_states` row is locked by the caller's
 * transaction): requests the automatic analyses when the asset is the file of an AUDIO version
 * that was never checked and the file is now ONLINE, with `writer`'s source system (the write
 * that brought the file online). True when they were requested.
 */
export async function requestAnalysesOfFile(
  trx: Transaction<CatalogDb>,
  writer: Pick<CallContext, 'tenantId' | 'sourceSystem'>,
  state: AssetStateRow,
): Promise<boolean> {
  const { tenantId } = writer;
  const version = await findVersionByAsset(trx, tenantId, state.asset_id);
  if (!version || version.kind !== 'AUDIO' || state.status !== 'ONLINE' || version.analyses_checked_at !== null) return false;
  const entity = await findEntity(trx, tenantId, version.entity_id);
  if (!entity) return false;
  return requestAutomaticAnalyses(trx, outboxFor(trx, 'catalog', writer), { tenantId, entity, version, assetStatus: state.status });
}

/**
 * `recordAssetState` (decision 0115): the asset service tells the catalog what a confirmation
 * left of a version's file before the confirmation answers, so that the version listing, the
 * entity's `primaryAudioVersion` and the analyses' sources read after it see the file's status.
 * Applied like any answer of the asset service (stamped with the asset's `updatedAt`: a state
 * the catalog learnt from a later write stays), with the automatic analyses in the same
 * transaction. Idempotent: asking again, or the asset event arriving before or after, changes
 * nothing more and records nothing more.
 */
export async function recordAssetState(
  deps: { db: Kysely<CatalogDb> },
  call: CallContext,
  asset: Asset,
): Promise<{ analysesRequested: boolean }> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    await recordAssetSnapshot(trx, call.tenantId, asset.id, factsOf(asset), new Date(asset.updatedAt));
    const state = await lockAssetState(trx, call.tenantId, asset.id);
    return { analysesRequested: state ? await requestAnalysesOfFile(trx, call, state) : false };
  });
}

/** What an asset event's facts did: `stale` when the catalog already holds facts of a later event. */
export type AssetEventOutcome = 'applied' | 'stale';

/**
 * Applies the facts of one asset event (delivered at `position` of the events stream) in one
 * transaction of the event's tenant:
 * - the facts replace the stored ones only if the position is newer than the event they came from, so a
 *   redelivery or an older event delivered late changes nothing (idempotent, order-safe);
 * - when the asset is the file of an AUDIO version and is now ONLINE, the entity type's automatic
 *   analyses are requested (once per version) in the same transaction; the confirmation usually
 *   brought them already (`recordAssetState`, decision 0115), and then this changes nothing.
 */
export async function applyAssetEventFacts(
  deps: { db: Kysely<CatalogDb> },
  writer: Pick<CallContext, 'tenantId' | 'sourceSystem'>,
  event: { assetId: string; facts: AssetFacts; position: EventPosition; occurredAt: Date },
): Promise<AssetEventOutcome> {
  return inTenantTransaction(deps.db, writer.tenantId, async (trx) => {
    const state = await applyAssetFacts(trx, writer.tenantId, event.assetId, event.facts, event.position, event.occurredAt);
    if (!state) return 'stale';
    await requestAnalysesOfFile(trx, writer, state);
    return 'applied';
  });
}
