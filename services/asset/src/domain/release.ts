import type { Kysely } from 'kysely';
import { inTenantTransaction, isUuid, type BusEvent } from '@catalog/platform';
import { recordAssetEvent } from '../messaging/events.js';
import { findAsset, setExpiry, updateAsset } from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';
import { expiryWithRetention, type RetentionPolicy } from './retention.js';

export interface ReleaseDeps {
  db: Kysely<AssetDb>;
  policy: RetentionPolicy;
}

/** `released`: the asset is standalone now; `unchanged`: nothing to do; `ignored`: not a version deletion. */
export type ReleaseOutcome = 'released' | 'unchanged' | 'ignored';

/**
 * Releases the file of a deleted version (a `version.deleted` event of the catalog, on its own or
 * with its entity), in one transaction of the event's tenant: the asset `data.assetId` is locked
 * and released only if it is not EXPIRED, is `attached` and is still the file of that very
 * version (`version_id`). Then it becomes `standalone` (no entity, no version) and expires as a
 * standalone file of its status does from now, with an `asset.released` event by the writer of the
 * deletion. Anything else changes nothing: an asset re-attached to another version since (a late
 * or redelivered event), one already released (idempotent), or one whose version is not known
 * (attached before assets recorded it: never risk removing a file in use).
 */
export async function releaseVersionAsset(deps: ReleaseDeps, event: BusEvent): Promise<ReleaseOutcome> {
  const versionId = event.resourceId?.toLowerCase();
  const assetId = event.data.assetId;
  if (event.type !== 'version.deleted' || event.resourceKind !== 'version' || !isUuid(versionId) || !isUuid(assetId)) return 'ignored';
  const { tenantId } = event;
  return inTenantTransaction(deps.db, tenantId, async (trx) => {
    const current = await findAsset(trx, tenantId, assetId.toLowerCase(), { lock: true });
    if (!current || current.status === 'EXPIRED' || current.retention !== 'attached' || current.version_id !== versionId) return 'unchanged';
    const released = await updateAsset(trx, tenantId, current.id, {
      retention: 'standalone',
      entity_id: null,
      version_id: null,
      expires_at: expiryWithRetention(deps.policy, current, 'standalone', new Date()),
    });
    await setExpiry(trx, tenantId, current.id, released.expires_at);
    await recordAssetEvent(trx, { tenantId, sourceSystem: event.sourceSystem }, 'asset.released', released, { versionId });
    return 'released';
  });
}
