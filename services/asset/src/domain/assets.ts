import type { Kysely } from 'kysely';
import {
  badRequest,
  conflict,
  inTenantTransaction,
  newId,
  notFound,
  payloadTooLarge,
  unsupportedMediaType,
  type CallContext,
  type Logger,
} from '@catalog/platform';
import type { Asset, AssetKind, AssetRetention, AssetWithUpload, UploadDescription } from '@catalog/contracts';
import { objectKey, type BlobDigest, type BlobStat, type BlobStore, type StagedUpload, type UrlSigner } from '../blob/index.js';
import type { AudioProbe } from '../media/probe.js';
import { recordAssetEvent, type Writer } from '../messaging/events.js';
import { findAsset, insertAsset, lockUpload, updateAsset, type AssetRow } from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';
import { ALLOWED_CONTENT_TYPES, kindOf, normalizeContentType } from './kinds.js';
import { expiredError, failedError, UNREADABLE_AUDIO_MESSAGE, uploadClosed, uploadInProgress } from './asset-errors.js';
import { assetJson } from './representation.js';
import { expiryWithRetention, failedExpiry, onlineExpiry, unconfirmedExpiry, type RetentionPolicy } from './retention.js';

export interface AssetPolicy extends RetentionPolicy {
  maxUploadBytes: number;
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
}

export interface AssetServiceDeps {
  db: Kysely<AssetDb>;
  store: BlobStore;
  signer: UrlSigner;
  policy: AssetPolicy;
  probe: AudioProbe;
  logger: Logger;
  /** Base URL of this replica's HTTP listener, where the gateway fetches downloads. */
  listenerUrl(): string;
}

interface CheckedDescription {
  kind: AssetKind;
  filename: string;
  contentType: string;
  size: number | null;
  sha256: string | null;
}

interface Verdict {
  digest: BlobDigest;
  durationMs: number | null;
  problem: { code: string; message: string } | null;
}

/** Ids of a stored upload, as its object key names them. */
export interface UploadRef {
  tenantId: string;
  assetId: string;
  uploadId: string;
}

const seconds = (n: number): number => n * 1000;

function writer(call: CallContext): Writer {
  return { tenantId: call.tenantId, sourceSystem: call.sourceSystem };
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
 * The asset domain: upload targets, confirmation, downloads and attachment. Every write and its
 * event commit together; bytes are checked (size, sha256, audio duration) with no transaction open,
 * and the transaction then re-checks, under the asset's upload lock, that no other upload was
 * placed meanwhile. No transaction waits for the blob store.
 */
export class AssetService {
  constructor(private readonly deps: AssetServiceDeps) {}

  private checkDescription(upload: UploadDescription): CheckedDescription {
    const contentType = normalizeContentType(upload.contentType);
    const kind = kindOf(contentType);
    if (!kind) {
      throw unsupportedMediaType(`content type ${contentType} is not accepted for assets`, { contentType, allowed: ALLOWED_CONTENT_TYPES });
    }
    if (upload.size === undefined && this.deps.store.requiresDeclaredSize) {
      throw badRequest(
        'size_required',
        'files are stored in an object store that must know the size of an upload in advance: declare upload.size (bytes)',
        {
          field: 'size',
        },
      );
    }
    if (upload.size !== undefined && upload.size > this.deps.policy.maxUploadBytes) {
      throw payloadTooLarge(`the file is larger than the ${this.deps.policy.maxUploadBytes} bytes an asset may have`, {
        limitBytes: this.deps.policy.maxUploadBytes,
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

  private async read(tenantId: string, id: string): Promise<AssetRow> {
    const row = await inTenantTransaction(this.deps.db, tenantId, (trx) => findAsset(trx, tenantId, id));
    if (!row) throw notFound('asset');
    return row;
  }

  private async target(row: AssetRow): Promise<AssetWithUpload['upload']> {
    const signed = await this.deps.store.uploadTarget({
      key: row.object_key,
      contentType: row.content_type,
      size: row.declared_size === null ? null : Number(row.declared_size),
      sha256: row.declared_sha256,
      expiresAt: row.upload_expires_at,
    });
    return { url: signed.url, method: 'PUT', headers: signed.headers, expiresAt: row.upload_expires_at.toISOString() };
  }

  private withUpload(row: AssetRow, upload: AssetWithUpload['upload']): AssetWithUpload {
    return { ...assetJson(row), assetId: row.id, upload };
  }

  /**
   * The columns of an asset awaiting a new upload of `description`: a fresh upload id and object
   * key, the upload URL's expiry, and the asset's own expiry if the upload is never confirmed.
   */
  private pendingUpload(tenantId: string, id: string, description: CheckedDescription) {
    const { policy } = this.deps;
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

  /**
   * A new asset awaiting its upload, with the signed upload target. `entityId` and `versionId`:
   * the catalog's version whose file it is (that version's deletion releases it).
   */
  async create(
    call: CallContext,
    input: { retention: AssetRetention; upload: UploadDescription; entityId?: string; versionId?: string },
  ): Promise<AssetWithUpload> {
    const description = this.checkDescription(input.upload);
    const id = newId();
    const pending = this.pendingUpload(call.tenantId, id, description);
    const row = await inTenantTransaction(this.deps.db, call.tenantId, async (trx) => {
      const inserted = await insertAsset(trx, {
        id,
        tenant_id: call.tenantId,
        retention: input.retention,
        kind: description.kind,
        entity_id: input.entityId ?? null,
        version_id: input.versionId ?? null,
        ...pending,
      });
      await recordAssetEvent(trx, writer(call), 'asset.created', inserted);
      return inserted;
    });
    return this.withUpload(row, await this.target(row));
  }

  async get(call: CallContext, id: string): Promise<Asset> {
    return assetJson(await this.read(call.tenantId, id));
  }

  /**
   * Checks the uploaded bytes and moves the asset to ONLINE; repeating it answers the same.
   * Nothing uploaded yet → 409 upload_missing. Bytes that do not match the declaration (or audio
   * ffprobe cannot read) → the asset becomes FAILED, its bytes are removed, and 409 asset_failed.
   */
  async confirm(call: CallContext, id: string): Promise<Asset> {
    const row = await this.read(call.tenantId, id);
    if (row.status !== 'PENDING_UPLOAD') return this.settled(row);
    // The bytes are read, hashed and probed, and checked again, with no transaction open.
    const verdict = await this.inspect(row);
    const now = await this.deps.store.stat(row.object_key);
    if (!now || now.etag !== verdict.digest.etag) throw uploadInProgress();
    const outcome = await inTenantTransaction(this.deps.db, call.tenantId, async (trx) => {
      await lockUpload(trx, id);
      const current = await findAsset(trx, call.tenantId, id, { lock: true });
      if (!current) throw notFound('asset');
      if (current.status !== 'PENDING_UPLOAD' || current.upload_id !== row.upload_id) return { row: current, failed: false };
      // fs: an upload placed since the check above recorded its etag under the upload lock.
      if (current.uploaded_etag !== null && current.uploaded_etag !== verdict.digest.etag) throw uploadInProgress();
      const confirmedAt = new Date();
      if (verdict.problem) {
        const failed = await updateAsset(trx, call.tenantId, id, {
          status: 'FAILED',
          failure_code: verdict.problem.code,
          failure_message: verdict.problem.message,
          expires_at: failedExpiry(this.deps.policy, confirmedAt),
        });
        await recordAssetEvent(trx, writer(call), 'asset.failed', failed, { reason: verdict.problem.code });
        return { row: failed, failed: true };
      }
      const online = await updateAsset(trx, call.tenantId, id, {
        status: 'ONLINE',
        size: verdict.digest.size,
        sha256: verdict.digest.sha256,
        blob_etag: verdict.digest.etag,
        duration_ms: verdict.durationMs,
        confirmed_at: confirmedAt,
        expires_at: onlineExpiry(this.deps.policy, current.retention, confirmedAt),
      });
      await recordAssetEvent(trx, writer(call), 'asset.confirmed', online);
      return { row: online, failed: false };
    });
    if (outcome.failed) {
      await this.removeBlob(outcome.row.object_key);
      throw failedError(outcome.row);
    }
    return this.settled(outcome.row);
  }

  /** The answer of a confirmation for an asset that is no longer awaiting this upload. */
  private settled(row: AssetRow): Asset {
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

  /** Size, checksum and (audio) duration of the uploaded bytes against the declaration. */
  private async inspect(row: AssetRow): Promise<Verdict> {
    const { store, policy } = this.deps;
    const stat = await store.stat(row.object_key);
    if (!stat) throw conflict('upload_missing', 'no file has been uploaded to the upload target yet', { assetId: row.id });
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
    const verdict = await this.inspectBytes(row, stat);
    if (!verdict) throw conflict('upload_missing', 'no file has been uploaded to the upload target yet', { assetId: row.id });
    return verdict;
  }

  /**
   * Checksum and, for audio, duration; null when the object is gone. Audio is probed from a local
   * file, and on s3 the copy made for it is hashed on the way: the object is read once.
   */
  private async inspectBytes(row: AssetRow, stat: BlobStat): Promise<Verdict | null> {
    const { store } = this.deps;
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
      const probed = await this.deps.probe(local.path);
      if (!probed.audio) return { digest, durationMs: null, problem: { code: 'unreadable_audio', message: UNREADABLE_AUDIO_MESSAGE } };
      return { digest, durationMs: probed.durationMs, problem: null };
    });
    return verdict ?? null;
  }

  /**
   * A new upload target for an asset that is not ONLINE (FAILED, or awaiting an upload whose URL
   * may have expired), with a new description of the same kind. The former bytes are removed.
   */
  async requestUpload(call: CallContext, id: string, upload: UploadDescription): Promise<AssetWithUpload> {
    const description = this.checkDescription(upload);
    const pending = this.pendingUpload(call.tenantId, id, description);
    const { row, previousKey } = await inTenantTransaction(this.deps.db, call.tenantId, async (trx) => {
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
      await recordAssetEvent(trx, writer(call), 'asset.upload_requested', renewed);
      return { row: renewed, previousKey: current.object_key };
    });
    await this.removeBlob(previousKey);
    return this.withUpload(row, await this.target(row));
  }

  /** A short-lived signed URL of this service's listener that streams the file (the gateway follows it). */
  async downloadLocation(call: CallContext, id: string): Promise<string> {
    const row = await this.read(call.tenantId, id);
    if (row.status !== 'ONLINE') {
      throw conflict('asset_not_online', `the asset is ${row.status}; only ONLINE assets can be downloaded`, {
        assetId: id,
        status: row.status,
      });
    }
    const path = `/blobs/${row.object_key}`;
    const params: Record<string, string> = {
      ct: row.content_type,
      fn: row.filename,
      sha256: row.sha256 ?? '',
      len: String(row.size),
      betag: row.blob_etag ?? '',
    };
    const expiresAt = new Date(Date.now() + seconds(this.deps.policy.downloadUrlTtlSeconds));
    return `${this.deps.listenerUrl()}${path}?${this.deps.signer.sign('GET', path, params, expiresAt)}`;
  }

  /**
   * Makes an asset the file of version `versionId` (for the catalog): retention becomes
   * `attached`, so an ONLINE asset no longer expires (a pending or FAILED one keeps its expiry), and
   * the version replaces the one recorded before, whose deletion then no longer releases it. Without
   * a version id the asset records none (it is never released: its user is not known). Attaching
   * again with the same entity and version changes nothing and records nothing.
   */
  async attach(call: CallContext, id: string, target: { entityId?: string | undefined; versionId?: string | undefined }): Promise<Asset> {
    const row = await inTenantTransaction(this.deps.db, call.tenantId, async (trx) => {
      const current = await findAsset(trx, call.tenantId, id, { lock: true });
      if (!current) throw notFound('asset');
      if (current.status === 'EXPIRED') throw expiredError(current);
      const nextEntity = target.entityId ?? current.entity_id;
      const nextVersion = target.versionId ?? null;
      if (current.retention === 'attached' && current.entity_id === nextEntity && current.version_id === nextVersion) return current;
      const attached = await updateAsset(trx, call.tenantId, id, {
        retention: 'attached',
        entity_id: nextEntity,
        version_id: nextVersion,
        expires_at: expiryWithRetention(this.deps.policy, current, 'attached', new Date()),
      });
      await recordAssetEvent(trx, writer(call), 'asset.attached', attached);
      return attached;
    });
    return assetJson(row);
  }

  /** For the fs listener: 409 unless the asset still awaits this very upload. */
  async assertUploadOpen(ref: UploadRef): Promise<void> {
    const row = await inTenantTransaction(this.deps.db, ref.tenantId, (trx) => findAsset(trx, ref.tenantId, ref.assetId));
    if (!row || row.status !== 'PENDING_UPLOAD' || row.upload_id !== ref.uploadId) throw uploadClosed();
  }

  /**
   * For the fs listener: puts verified bytes in place under the asset's upload lock, so that a
   * confirmation, a new upload target or the expiry cannot interleave, and records their size,
   * sha256 and etag. The lock gives the transaction no xid while the file is renamed (a file
   * system wait, possibly a network one); the row is written only after.
   */
  async commitUpload(ref: UploadRef, staged: StagedUpload): Promise<void> {
    try {
      await inTenantTransaction(this.deps.db, ref.tenantId, async (trx) => {
        await lockUpload(trx, ref.assetId);
        const row = await findAsset(trx, ref.tenantId, ref.assetId);
        if (!row || row.status !== 'PENDING_UPLOAD' || row.upload_id !== ref.uploadId) throw uploadClosed();
        const stored = await staged.commit();
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

  private async removeBlob(key: string): Promise<void> {
    await this.deps.store.remove(key).catch((error: unknown) => this.deps.logger.warn({ err: error, key }, 'could not remove a blob'));
  }
}
