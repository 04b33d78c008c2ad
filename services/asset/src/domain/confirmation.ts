import type { Asset } from '@catalog/contracts';
import { AppError, conflict, inTenantTransaction, notFound, type CallContext, type Transaction } from '@catalog/platform';
import type { BlobDigest, BlobStat } from '../persistence/blob/index.js';
import { recordAssetEvent } from '../persistence/asset-events.js';
import { findAsset, lockUpload, updateAsset, type AssetRow } from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';
import { confirmationInProgress, expiredError, failedError, UNREADABLE_AUDIO_MESSAGE, uploadInProgress } from './asset-errors.js';
import { readAsset, removeBlob, writerOf, type AssetDeps } from './assets.js';
import { assetJson } from './representation.js';
import { failedExpiry, onlineExpiry } from './retention.js';

/** What confirming an upload needs. */
export type ConfirmationDeps = Pick<AssetDeps, 'db' | 'store' | 'policy' | 'probe' | 'logger' | 'catalog' | 'verifications'>;

/** What the uploaded bytes are, and what is wrong with them (null: nothing). */
interface Verdict {
  digest: BlobDigest;
  durationMs: number | null;
  problem: { code: string; message: string } | null;
}

/**
 * Checks the uploaded bytes and moves the asset to ONLINE; repeating it answers the same.
 * Nothing uploaded yet → 409 upload_missing. Bytes that do not match the declaration (or audio
 * ffprobe cannot read) → the asset becomes FAILED, its bytes are removed, and 409 asset_failed.
 * The bytes are read, hashed and probed with no transaction open; the transaction then re-checks,
 * under the asset's upload lock, that no other upload was placed meanwhile (decision 0058).
 * The file of a version is recorded by the catalog before the answer (decision 0115).
 * An upload is verified once however often it is confirmed, and a confirmation waits for it at most
 * `confirmWaitMs`, then answers 503 `confirmation_in_progress` while it goes on (decision 0148).
 */
export async function confirmAsset(deps: ConfirmationDeps, call: CallContext, id: string): Promise<Asset> {
  const row = await readAsset(deps.db, call.tenantId, id);
  const outcome = row.status === 'PENDING_UPLOAD' ? await verifiedUpload(deps, call, row) : row;
  await tellCatalog(deps, call, outcome);
  return settled(outcome);
}

/** The asset once its upload's verification (started here or joined) has ended, or 503 while it goes on. */
async function verifiedUpload(deps: ConfirmationDeps, call: CallContext, row: AssetRow): Promise<AssetRow> {
  const { confirmWaitMs } = deps.policy;
  const key = `${row.id}/${row.upload_id}`;
  const outcome = await deps.verifications.join(key, () => confirmUpload(deps, call, row), confirmWaitMs);
  if (outcome === null) throw confirmationInProgress(row, Math.max(1, Math.ceil(confirmWaitMs / 1000)));
  return outcome;
}

/** Inspects the upload and records the verdict: the asset as it is afterwards (a FAILED one's bytes removed). */
async function confirmUpload(deps: ConfirmationDeps, call: CallContext, row: AssetRow): Promise<AssetRow> {
  const verdict = await inspect(deps, row);
  const now = await deps.store.stat(row.object_key);
  if (!now || now.etag !== verdict.digest.etag) throw uploadInProgress();
  const outcome = await inTenantTransaction(deps.db, call.tenantId, (trx) => recordVerdict(deps, trx, call, row, verdict));
  if (outcome.failed) await removeBlob(deps, outcome.row.object_key);
  return outcome.row;
}

/**
 * Read-your-writes for versions (decision 0115): when the asset is the file of a version (the
 * catalog named one) and its confirmation settled it (ONLINE or FAILED), the catalog records that
 * state, with no transaction open, before the confirmation answers. If the catalog cannot, the
 * confirmation answers 503 and confirming again (idempotent) tells it again; the asset event
 * brings the catalog the same state later either way.
 */
async function tellCatalog(deps: ConfirmationDeps, call: CallContext, row: AssetRow): Promise<void> {
  if (row.version_id === null || (row.status !== 'ONLINE' && row.status !== 'FAILED')) return;
  try {
    await deps.catalog.recordAssetState(call, assetJson(row));
  } catch (error) {
    deps.logger.warn({ err: error, assetId: row.id, status: row.status }, 'the catalog did not record a confirmed version file');
    throw new AppError(503, 'service_unavailable', `the upload is ${row.status}, but the catalog could not record it yet; confirm again`, {
      assetId: row.id,
      status: row.status,
    });
  }
}

/** Under the upload lock: the asset becomes ONLINE or FAILED as the verdict says, if it still awaits the inspected upload. */
async function recordVerdict(
  deps: ConfirmationDeps,
  trx: Transaction<AssetDb>,
  call: CallContext,
  inspected: AssetRow,
  verdict: Verdict,
): Promise<{ row: AssetRow; failed: boolean }> {
  const { tenantId } = call;
  await lockUpload(trx, inspected.id);
  const current = await findAsset(trx, tenantId, inspected.id, { lock: true });
  if (!current) throw notFound('asset');
  if (current.status !== 'PENDING_UPLOAD' || current.upload_id !== inspected.upload_id) return { row: current, failed: false };
  // fs: an upload placed since the inspection recorded its etag under the upload lock.
  if (current.uploaded_etag !== null && current.uploaded_etag !== verdict.digest.etag) throw uploadInProgress();
  const confirmedAt = new Date();
  if (verdict.problem) {
    const failed = await updateAsset(trx, tenantId, current.id, {
      status: 'FAILED',
      failure_code: verdict.problem.code,
      failure_message: verdict.problem.message,
      expires_at: failedExpiry(deps.policy, confirmedAt),
    });
    await recordAssetEvent(trx, writerOf(call), 'asset.failed', failed, { reason: verdict.problem.code });
    return { row: failed, failed: true };
  }
  const online = await updateAsset(trx, tenantId, current.id, {
    status: 'ONLINE',
    size: verdict.digest.size,
    sha256: verdict.digest.sha256,
    blob_etag: verdict.digest.etag,
    duration_ms: verdict.durationMs,
    confirmed_at: confirmedAt,
    expires_at: onlineExpiry(deps.policy, current.retention, confirmedAt),
  });
  await recordAssetEvent(trx, writerOf(call), 'asset.confirmed', online);
  return { row: online, failed: false };
}

/** The answer of a confirmation for an asset that is no longer awaiting this upload. */
function settled(row: AssetRow): Asset {
  switch (row.status) {
    case 'ONLINE':
      return assetJson(row);
    case 'FAILED':
      throw failedError(row);
    case 'EXPIRED':
      throw expiredError(row);
    default:
      throw conflict('upload_changed', 'a new upload target was issued while confirming; upload to it and confirm again');
  }
}

const uploadMissing = (row: AssetRow) =>
  conflict('upload_missing', 'no file has been uploaded to the upload target yet', { assetId: row.id });

/** Size, checksum and (audio) duration of the uploaded bytes against the declaration. */
async function inspect(deps: ConfirmationDeps, row: AssetRow): Promise<Verdict> {
  const { store, policy } = deps;
  const stat = await store.stat(row.object_key);
  if (!stat) throw uploadMissing(row);
  const declaredSize = row.declared_size === null ? null : Number(row.declared_size);
  const unhashed = { ...stat, sha256: '' };
  if (stat.size > policy.maxUploadBytes) {
    return {
      digest: unhashed,
      durationMs: null,
      problem: { code: 'too_large', message: `the file has ${stat.size} bytes, more than the ${policy.maxUploadBytes} allowed` },
    };
  }
  if (declaredSize !== null && stat.size !== declaredSize) {
    return {
      digest: unhashed,
      durationMs: null,
      problem: { code: 'size_mismatch', message: `the file has ${stat.size} bytes, ${declaredSize} were declared` },
    };
  }
  const verdict = await inspectBytes(deps, row, stat);
  if (!verdict) throw uploadMissing(row);
  return verdict;
}

/** The verdict on bytes whose sha256 is not the declared one; null when it is (or none was declared). */
function checksumProblem(row: AssetRow, digest: BlobDigest): Verdict | null {
  if (row.declared_sha256 === null || digest.sha256 === row.declared_sha256) return null;
  return {
    digest,
    durationMs: null,
    problem: { code: 'checksum_mismatch', message: 'the sha256 of the file differs from the declared checksum' },
  };
}

/**
 * Checksum and, for audio, duration; null when the object is gone. Audio is probed from a local
 * file, and on s3 the copy made for it is hashed on the way: the object is read once.
 */
async function inspectBytes(deps: ConfirmationDeps, row: AssetRow, stat: BlobStat): Promise<Verdict | null> {
  const { store } = deps;
  // The fs listener hashed the bytes as they arrived; otherwise they are read here.
  const known =
    row.uploaded_etag === stat.etag && row.uploaded_sha256 !== null && row.uploaded_size !== null
      ? { size: Number(row.uploaded_size), sha256: row.uploaded_sha256, etag: stat.etag }
      : null;
  if (row.kind !== 'AUDIO') {
    const digest = known ?? (await store.digest(row.object_key));
    return digest && (checksumProblem(row, digest) ?? { digest, durationMs: null, problem: null });
  }
  const verdict = await store.withLocalFile(row.object_key, async (local): Promise<Verdict | null> => {
    const digest = known ?? (await local.digest());
    if (!digest) return null;
    const mismatch = checksumProblem(row, digest);
    if (mismatch) return mismatch;
    const probed = await deps.probe(local.path);
    if (!probed.audio) return { digest, durationMs: null, problem: { code: 'unreadable_audio', message: UNREADABLE_AUDIO_MESSAGE } };
    return { digest, durationMs: probed.durationMs, problem: null };
  });
  return verdict ?? null;
}
