import type { Asset } from '@catalog/contracts';
import {
  conflict,
  inTenantTransaction,
  notFound,
  unsupportedMediaType,
  type CallContext,
  type Kysely,
  type Logger,
  type OutboxContext,
} from '@catalog/platform';
import type { CatalogClient } from '../integration/catalog-client.js';
import type { BlobStore, UrlSigner } from '../persistence/blob/index.js';
import type { AudioProbe } from './probe.js';
import type { Verifications } from './verifications.js';
import { recordAssetEvent } from '../persistence/asset-events.js';
import { findAsset, updateAsset, type AssetRow } from '../persistence/assets.js';
import type { AssetDb } from '../persistence/tables.js';
import { expiredError } from './asset-errors.js';
import { assetJson } from './representation.js';
import { expiryWithRetention, type RetentionPolicy } from './retention.js';

/**
 * The asset domain: functions taking explicit dependencies (each the part of `AssetDeps` it uses).
 * Upload targets are in upload-targets.ts, confirmation in confirmation.ts, the fs listener's
 * steps in fs-uploads.ts, release in release.ts, expiry in retention.ts. Every write and its event
 * commit together; no transaction waits for the blob store (decision 0058).
 */

export interface AssetPolicy extends RetentionPolicy {
  maxUploadBytes: number;
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
  /** Longest a confirmation waits for its upload's verification before it answers that it is under way. */
  confirmWaitMs: number;
}

export interface AssetDeps {
  db: Kysely<AssetDb>;
  store: BlobStore;
  signer: UrlSigner;
  policy: AssetPolicy;
  probe: AudioProbe;
  logger: Logger;
  /** Base URL of this replica's HTTP listener, where the gateway fetches downloads. */
  listenerUrl(): string;
  /** The catalog, told of a version's file a confirmation settled (decision 0115). */
  catalog: CatalogClient;
  /** The uploads being verified in this process, one verification each (decision 0148). */
  verifications: Verifications<AssetRow>;
}

export const seconds = (n: number): number => n * 1000;

/** Who writes, for the events of a call's writes. */
export function writerOf(call: CallContext): OutboxContext {
  return { tenantId: call.tenantId, sourceSystem: call.sourceSystem };
}

/** The tenant's asset, or 404. */
export async function readAsset(db: Kysely<AssetDb>, tenantId: string, id: string): Promise<AssetRow> {
  const row = await inTenantTransaction(db, tenantId, (trx) => findAsset(trx, tenantId, id));
  if (!row) throw notFound('asset');
  return row;
}

/** Removes bytes no asset needs any more; a failure is logged (the bytes are unreachable anyway). */
export async function removeBlob(deps: Pick<AssetDeps, 'store' | 'logger'>, key: string): Promise<void> {
  await deps.store.remove(key).catch((error: unknown) => deps.logger.warn({ err: error, key }, 'could not remove a blob'));
}

export async function getAsset(deps: Pick<AssetDeps, 'db'>, call: CallContext, id: string): Promise<Asset> {
  return assetJson(await readAsset(deps.db, call.tenantId, id));
}

/** A short-lived signed URL of this service's listener that streams the file (the gateway follows it). */
export async function downloadLocation(
  deps: Pick<AssetDeps, 'db' | 'signer' | 'policy' | 'listenerUrl'>,
  call: CallContext,
  id: string,
): Promise<string> {
  const row = await readAsset(deps.db, call.tenantId, id);
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
  const expiresAt = new Date(Date.now() + seconds(deps.policy.downloadUrlTtlSeconds));
  return `${deps.listenerUrl()}${path}?${deps.signer.sign('GET', path, params, expiresAt)}`;
}

/**
 * Makes an asset the file of version `versionId` (for the catalog): retention becomes
 * `attached`, so an ONLINE asset no longer expires (a pending or FAILED one keeps its expiry), and
 * the version replaces the one recorded before, whose deletion then no longer releases it. Without
 * a version id the asset records none (it is never released: its user is not known). Attaching
 * again with the same entity and version changes nothing and records nothing.
 */
export async function attachAsset(
  deps: Pick<AssetDeps, 'db' | 'policy'>,
  call: CallContext,
  id: string,
  target: { entityId?: string | undefined; versionId?: string | undefined },
): Promise<Asset> {
  const row = await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const current = await findAsset(trx, call.tenantId, id, { lock: true });
    if (!current) throw notFound('asset');
    if (current.status === 'EXPIRED') throw expiredError(current);
    if (current.kind === 'DATA') {
      throw unsupportedMediaType(`a ${current.content_type} file (an import job's) cannot be the file of a version`, {
        contentType: current.content_type,
        kind: current.kind,
      });
    }
    const nextEntity = target.entityId ?? current.entity_id;
    const nextVersion = target.versionId ?? null;
    if (current.retention === 'attached' && current.entity_id === nextEntity && current.version_id === nextVersion) return current;
    const attached = await updateAsset(trx, call.tenantId, id, {
      retention: 'attached',
      entity_id: nextEntity,
      version_id: nextVersion,
      expires_at: expiryWithRetention(deps.policy, current, 'attached', new Date()),
    });
    await recordAssetEvent(trx, writerOf(call), 'asset.attached', attached);
    return attached;
  });
  return assetJson(row);
}
