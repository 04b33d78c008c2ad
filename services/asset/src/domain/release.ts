import type { Kysely } from 'kysely';
import { inTenantTransaction } from '@catalog/platform';
import { recordAssetEvent } from '../persistence/asset-events.js';
import { findAsset, updateAsset } from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';
import { expiryWithRetention, type RetentionPolicy } from './retention.js';

export interface ReleaseDeps {
  db: Kysely<AssetDb>;
  policy: RetentionPolicy;
}

/** `released`: the asset is standalone now; `unchanged`: nothing to do; `ignored`: not a version deletion. */
export type ReleaseOutcome = 'released' | 'unchanged' | 'ignored';

export interface ReleaseRequest {
  tenantId: string;
  assetId: string;
  /** The version the asset must still be the file of. */
  versionId: string;
  /** Who released it: the deleting write's source system, or the catalog's failed write's. */
  sourceSystem: string;
}

/**
 * Releases the file of a version that no longer exists, in one transaction of its tenant: the
 * asset is locked and released only if it is not EXPIRED, is `attached` and is still the file of
 * that very version (`version_id`). Then it becomes `standalone` (no entity, no version) and
 * expires as a standalone file of its status does from now, with an `asset.released` event.
 * Anything else changes nothing: an asset re-attached to another version since (a late or
 * redelivered event), one already released (idempotent), or one whose version is not known
 * (attached before assets recorded it: never risk removing a file in use).
 */
export async function releaseAsset(deps: ReleaseDeps, request: ReleaseRequest): Promise<Exclude<ReleaseOutcome, 'ignored'>> {
  const { tenantId, versionId } = request;
  return inTenantTransaction(deps.db, tenantId, async (trx) => {
    const current = await findAsset(trx, tenantId, request.assetId, { lock: true });
    if (!current || current.status === 'EXPIRED' || current.retention !== 'attached' || current.version_id !== versionId)
      return 'unchanged';
    const released = await updateAsset(trx, tenantId, current.id, {
      retention: 'standalone',
      entity_id: null,
      version_id: null,
      expires_at: expiryWithRetention(deps.policy, current, 'standalone', new Date()),
    });
    await recordAssetEvent(trx, { tenantId, sourceSystem: request.sourceSystem }, 'asset.released', released, { versionId });
    return 'released';
  });
}
