import { inTenantTransaction, type Kysely } from '@catalog/platform';
import type { StagedUpload } from '../persistence/blob/index.js';
import { findAsset, lockUpload, updateAsset } from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';
import { uploadClosed } from './asset-errors.js';

/** The fs listener's two steps of an upload (the s3 backend's uploads go to the object store). */

/** Ids of a stored upload, as its object key names them. */
export interface UploadRef {
  tenantId: string;
  assetId: string;
  uploadId: string;
}

/** 409 unless the asset still awaits this very upload. */
export async function assertUploadOpen(deps: { db: Kysely<AssetDb> }, ref: UploadRef): Promise<void> {
  const row = await inTenantTransaction(deps.db, ref.tenantId, (trx) => findAsset(trx, ref.tenantId, ref.assetId));
  if (!row || row.status !== 'PENDING_UPLOAD' || row.upload_id !== ref.uploadId) throw uploadClosed();
}

/**
 * Puts verified bytes in place under the asset's upload lock, so that a confirmation, a new
 * upload target or the expiry cannot interleave, and records their size, sha256 and etag. The
 * lock gives the transaction no xid while the file is renamed (a file system wait, possibly a
 * network one); the row is written only after.
 */
export async function commitUpload(deps: { db: Kysely<AssetDb> }, ref: UploadRef, staged: StagedUpload): Promise<void> {
  // The file moves once, even when the transaction runs again (decision 0110).
  let placed: ReturnType<StagedUpload['commit']> | undefined;
  try {
    await inTenantTransaction(deps.db, ref.tenantId, async (trx) => {
      await lockUpload(trx, ref.assetId);
      const row = await findAsset(trx, ref.tenantId, ref.assetId);
      if (!row || row.status !== 'PENDING_UPLOAD' || row.upload_id !== ref.uploadId) throw uploadClosed();
      const stored = await (placed ??= staged.commit());
      await updateAsset(trx, ref.tenantId, ref.assetId, {
        uploaded_size: staged.size,
        uploaded_sha256: staged.sha256,
        uploaded_etag: stored.etag,
      });
    });
  } finally {
    await staged.discard();
  }
}
