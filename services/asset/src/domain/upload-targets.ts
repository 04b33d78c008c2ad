import type { AssetRetention, AssetWithUpload, StoredAssetKind, UploadDescription } from '@catalog/contracts';
import { conflict, inTenantTransaction, newId, notFound, payloadTooLarge, unsupportedMediaType, type CallContext } from '@catalog/platform';
import { objectKey, type BlobStore } from '../persistence/blob/index.js';
import { recordAssetEvent } from '../persistence/asset-events.js';
import { findAsset, insertAsset, lockUpload, updateAsset, type AssetRow } from '../persistence/assets.js';
import { expiredError } from './asset-errors.js';
import { removeBlob, seconds, writerOf, type AssetDeps, type AssetPolicy } from './assets.js';
import { ALLOWED_CONTENT_TYPES, kindOf, normalizeContentType } from './kinds.js';
import { assetJson } from './representation.js';
import { unconfirmedExpiry } from './retention.js';

/** What issuing upload targets needs. */
export type UploadTargetDeps = Pick<AssetDeps, 'db' | 'store' | 'policy' | 'logger'>;

interface CheckedDescription {
  kind: StoredAssetKind;
  filename: string;
  contentType: string;
  size: number | null;
  sha256: string | null;
}

function checkDescription(policy: AssetPolicy, upload: UploadDescription): CheckedDescription {
  const contentType = normalizeContentType(upload.contentType);
  const kind = kindOf(contentType);
  if (!kind) {
    throw unsupportedMediaType(`content type ${contentType} is not accepted for assets`, { contentType, allowed: ALLOWED_CONTENT_TYPES });
  }
  if (upload.size !== undefined && upload.size > policy.maxUploadBytes) {
    throw payloadTooLarge(`the file is larger than the ${policy.maxUploadBytes} bytes an asset may have`, {
      limitBytes: policy.maxUploadBytes,
      size: upload.size,
    });
  }
  return {
    kind,
    filename: upload.filename,
    contentType,
    size: upload.size ?? null,
    sha256: upload.checksum ? upload.checksum.slice('sha256:'.length).toLowerCase() : null,
  };
}

/**
 * The columns of an asset awaiting a new upload of `description`: a fresh upload id and object
 * key, the upload URL's expiry, and the asset's own expiry if the upload is never confirmed.
 */
function pendingUpload(policy: AssetPolicy, tenantId: string, id: string, description: CheckedDescription) {
  const uploadId = newId();
  const uploadExpiresAt = new Date(Date.now() + seconds(policy.uploadUrlTtlSeconds));
  return {
    status: 'PENDING_UPLOAD' as const,
    filename: description.filename,
    content_type: description.contentType,
    declared_size: description.size,
    declared_sha256: description.sha256,
    upload_id: uploadId,
    object_key: objectKey(tenantId, id, uploadId),
    upload_expires_at: uploadExpiresAt,
    expires_at: unconfirmedExpiry(policy, uploadExpiresAt),
  };
}

/** The asset's JSON with the signed target of its upload. */
async function withUploadTarget(store: BlobStore, row: AssetRow): Promise<AssetWithUpload> {
  const signed = await store.uploadTarget({
    key: row.object_key,
    contentType: row.content_type,
    size: row.declared_size === null ? null : Number(row.declared_size),
    sha256: row.declared_sha256,
    expiresAt: row.upload_expires_at,
  });
  const upload = { url: signed.url, method: 'PUT' as const, headers: signed.headers, expiresAt: row.upload_expires_at.toISOString() };
  return { ...assetJson(row), assetId: row.id, upload };
}

/**
 * A new asset awaiting its upload, with the signed upload target. `entityId` and `versionId`:
 * the catalog's version whose file it is (that version's deletion releases it).
 */
export async function createAsset(
  deps: UploadTargetDeps,
  call: CallContext,
  input: { retention: AssetRetention; upload: UploadDescription; entityId?: string; versionId?: string },
): Promise<AssetWithUpload> {
  const description = checkDescription(deps.policy, input.upload);
  if (description.kind === 'DATA' && input.retention !== 'standalone') {
    throw unsupportedMediaType(`content type ${description.contentType} is accepted for standalone files only (an import job's file)`, {
      contentType: description.contentType,
      retention: input.retention,
    });
  }
  const id = newId();
  const pending = pendingUpload(deps.policy, call.tenantId, id, description);
  const row = await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const inserted = await insertAsset(trx, {
      id,
      tenant_id: call.tenantId,
      retention: input.retention,
      kind: description.kind,
      entity_id: input.entityId ?? null,
      version_id: input.versionId ?? null,
      ...pending,
    });
    await recordAssetEvent(trx, writerOf(call), 'asset.created', inserted);
    return inserted;
  });
  return withUploadTarget(deps.store, row);
}

/**
 * A new upload target for an asset that is not ONLINE (FAILED, or awaiting an upload whose URL
 * may have expired), with a new description of the same kind. The former bytes are removed.
 */
export async function requestAssetUpload(
  deps: UploadTargetDeps,
  call: CallContext,
  id: string,
  upload: UploadDescription,
): Promise<AssetWithUpload> {
  const description = checkDescription(deps.policy, upload);
  const pending = pendingUpload(deps.policy, call.tenantId, id, description);
  const { row, previousKey } = await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    await lockUpload(trx, id);
    const current = await findAsset(trx, call.tenantId, id, { lock: true });
    if (!current) throw notFound('asset');
    if (current.status === 'ONLINE')
      throw conflict('asset_online', 'the asset is already ONLINE; create a new asset for another file', { assetId: id });
    if (current.status === 'EXPIRED') throw expiredError(current);
    if (description.kind !== current.kind) {
      throw unsupportedMediaType(`content type ${description.contentType} is not accepted for an ${current.kind} asset`, {
        contentType: description.contentType,
        kind: current.kind,
        allowed: ALLOWED_CONTENT_TYPES[current.kind],
      });
    }
    const renewed = await updateAsset(trx, call.tenantId, id, {
      ...pending,
      uploaded_size: null,
      uploaded_sha256: null,
      uploaded_etag: null,
      failure_code: null,
      failure_message: null,
    });
    await recordAssetEvent(trx, writerOf(call), 'asset.upload_requested', renewed);
    return { row: renewed, previousKey: current.object_key };
  });
  await removeBlob(deps, previousKey);
  return withUploadTarget(deps.store, row);
}
