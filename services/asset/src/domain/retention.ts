import type { Kysely } from 'kysely';
import type { AssetRetention } from '@catalog/contracts';
import { runTransaction, type Logger } from '@catalog/platform';
import type { BlobStore } from '../persistence/blob/index.js';
import { recordAssetEvent } from '../persistence/asset-events.js';
import {
  actAsTenant,
  claimDueExpiries,
  findAsset,
  lockAssetIfFree,
  setExpiry,
  tryLockUpload,
  updateAsset,
  type AssetRow,
} from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';

/** The source system of the sweeper's writes (the events of expired assets). */
const RETENTION_SOURCE_SYSTEM = 'system:asset-retention';

/** The periods of decision 0022. */
export interface RetentionPolicy {
  /** A confirmed standalone asset expires this long after confirmation (or release). */
  standaloneRetentionSeconds: number;
  /** An unconfirmed upload expires this long after its URL did, a FAILED asset this long after failing. */
  unconfirmedGraceSeconds: number;
}

const afterSeconds = (from: Date, seconds: number): Date => new Date(from.getTime() + seconds * 1000);

/** An asset awaiting its upload expires the grace after its upload URL did. */
export function unconfirmedExpiry(policy: RetentionPolicy, uploadExpiresAt: Date): Date {
  return afterSeconds(uploadExpiresAt, policy.unconfirmedGraceSeconds);
}

/** A FAILED asset expires the grace after it failed. */
export function failedExpiry(policy: RetentionPolicy, failedAt: Date): Date {
  return afterSeconds(failedAt, policy.unconfirmedGraceSeconds);
}

/** An ONLINE asset: a standalone one expires the retention period after `since`; an attached one never. */
export function onlineExpiry(policy: RetentionPolicy, retention: AssetRetention, since: Date): Date | null {
  return retention === 'standalone' ? afterSeconds(since, policy.standaloneRetentionSeconds) : null;
}

/**
 * When an asset expires once its retention becomes `retention` at `now` (attach, release): an
 * ONLINE one by `onlineExpiry` from now; one awaiting its upload or FAILED keeps the expiry of
 * its status, which does not depend on retention; an EXPIRED one never again.
 */
export function expiryWithRetention(
  policy: RetentionPolicy,
  row: Pick<AssetRow, 'status' | 'upload_expires_at' | 'expires_at'>,
  retention: AssetRetention,
  now: Date,
): Date | null {
  switch (row.status) {
    case 'ONLINE':
      return onlineExpiry(policy, retention, now);
    case 'PENDING_UPLOAD':
      return unconfirmedExpiry(policy, row.upload_expires_at);
    case 'FAILED':
      // The failure time is not kept apart: the expiry set when it failed stands.
      return row.expires_at ?? failedExpiry(policy, now);
    case 'EXPIRED':
      return null;
  }
}

export interface SweeperDeps {
  db: Kysely<AssetDb>;
  store: BlobStore;
  logger: Logger;
  batchSize: number;
  /** Extra housekeeping run on every sweep (the fs backend's stale temporary files). */
  housekeeping?: () => Promise<void>;
}

/**
 * One pass of the retention sweeper: every asset whose time is up (standalone files after their
 * retention, uploads never confirmed) becomes EXPIRED with an `asset.expired` event, and its bytes
 * are removed once that has committed. Safe with several replicas: due entries and asset rows are
 * claimed with FOR UPDATE SKIP LOCKED, so two sweepers never take the same asset and an asset being
 * confirmed or uploaded right now (row or upload lock held) is left for the next pass. The bytes
 * are removed after the commit, never inside the transaction. Returns how many assets expired.
 */
export async function sweepOnce(deps: SweeperDeps): Promise<number> {
  let total = 0;
  for (;;) {
    const { claimed, keys } = await runTransaction(deps.db, async (trx) => {
      const due = await claimDueExpiries(trx, deps.batchSize);
      const removed: string[] = [];
      const now = new Date();
      for (const entry of due) {
        await actAsTenant(trx, entry.tenant_id);
        const row = await lockAssetIfFree(trx, entry.tenant_id, entry.asset_id);
        if (!row) {
          // Busy (skip: next pass) or gone (drop the entry).
          if (!(await findAsset(trx, entry.tenant_id, entry.asset_id))) await setExpiry(trx, entry.tenant_id, entry.asset_id, null);
          continue;
        }
        if (row.status === 'EXPIRED' || row.expires_at === null || row.expires_at > now) {
          await setExpiry(trx, row.tenant_id, row.id, row.status === 'EXPIRED' ? null : row.expires_at);
          continue;
        }
        // An fs upload being put in place (or a confirmation) holds it: next pass.
        if (!(await tryLockUpload(trx, row.id))) continue;
        const reason = row.status === 'ONLINE' ? 'retention_elapsed' : 'upload_not_confirmed';
        const expired = await updateAsset(trx, row.tenant_id, row.id, {
          status: 'EXPIRED',
          failure_code: reason,
          failure_message:
            reason === 'retention_elapsed' ? 'the retention period of the standalone file ended' : 'the upload was not confirmed in time',
        });
        await setExpiry(trx, row.tenant_id, row.id, null);
        await recordAssetEvent(trx, { tenantId: row.tenant_id, sourceSystem: RETENTION_SOURCE_SYSTEM }, 'asset.expired', expired, {
          reason,
        });
        removed.push(row.object_key);
      }
      return { claimed: due.length, keys: removed };
    });
    for (const key of keys) {
      await deps.store.remove(key).catch((error: unknown) => deps.logger.warn({ err: error, key }, 'could not remove an expired blob'));
    }
    total += keys.length;
    if (claimed < deps.batchSize || keys.length === 0) break;
  }
  if (total > 0) deps.logger.info({ expired: total }, 'assets expired');
  await deps.housekeeping?.();
  return total;
}
