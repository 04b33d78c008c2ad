import { unwrap, type CatalogClient } from '../client.js';
import { isTransient, ServerError } from '../errors.js';
import { backoffDelay } from '../http/retry.js';
import { sleep } from '../sleep.js';
import type { Asset, CreatedVersion, RequestBody } from '../types.js';
import { prepareFile, type PreparedFile, type UploadInput } from './file-source.js';
import { putFile, type UploadProgress, type UploadTarget } from './put.js';

export interface UploadOptions {
  /** Overrides the content type taken from the file name's extension. */
  contentType?: string;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

export interface AddVersionOptions extends UploadOptions {
  label: string;
  versionType: string;
  isPrimary?: boolean;
}

/** What an upload ends with: the confirmed asset (ONLINE), and the version when one was added. */
export interface UploadedVersion {
  version: CreatedVersion;
  asset: Asset;
}

type UploadDescription = RequestBody<'createAsset'>['upload'];

function describe(file: PreparedFile): UploadDescription {
  return {
    filename: file.filename,
    contentType: file.contentType as UploadDescription['contentType'],
    size: file.size,
    checksum: file.checksum,
  };
}

/** The PUT, sent again on a transient failure (the file is re-read from disk), then the confirmation. */
async function sendAndConfirm(client: CatalogClient, assetId: string, target: UploadTarget, file: PreparedFile, options: UploadOptions) {
  for (let attempt = 1; ; attempt++) {
    try {
      await putFile(target, file, { ...options, timeoutMs: client.retry.attemptTimeoutMs });
      break;
    } catch (error) {
      const retried = isTransient(error) || (error instanceof ServerError && error.status >= 500);
      if (!retried || attempt >= client.retry.maxAttempts || options.signal?.aborted) throw error;
      await sleep(error.retryAfterMs ?? backoffDelay(client.retry, attempt), options.signal);
    }
  }
  return unwrap(client.api.POST('/api/v1/catalog/assets/{id}/confirm', { params: { path: { id: assetId } }, signal: options.signal }));
}

/**
 * Adds a version to an entity from a file (rule 2 of part 4): creates the version with the
 * upload's name, type, size and sha256 (an Idempotency-Key on the create), PUTs the bytes to the
 * signed target with progress, and confirms. `file` is a path or a stream.
 */
export async function addVersionFromFile(
  client: CatalogClient,
  entityId: string,
  file: UploadInput,
  options: AddVersionOptions,
): Promise<UploadedVersion> {
  const prepared = await prepareFile(file, options.contentType);
  try {
    const body = {
      label: options.label,
      versionType: options.versionType,
      ...(options.isPrimary !== undefined ? { isPrimary: options.isPrimary } : {}),
      source: { upload: describe(prepared) },
    } as RequestBody<'createVersion'>;
    const version = await unwrap(
      client.api.POST('/api/v1/catalog/entities/{id}/versions', { params: { path: { id: entityId } }, body, signal: options.signal }),
    );
    if (!version.upload) throw new Error('the version was created without an upload target');
    const asset = await sendAndConfirm(client, version.asset.id, version.upload, prepared, options);
    return { version, asset };
  } finally {
    await prepared.dispose();
  }
}

/**
 * Uploads a file as an asset (rule 3 of part 4: `standalone` for a temporary file that belongs to
 * no entity): create, PUT with progress, confirm. Resolves with the confirmed asset.
 */
export async function uploadAsset(
  client: CatalogClient,
  file: UploadInput,
  options: UploadOptions & { retention?: 'standalone' | 'attached' } = {},
): Promise<Asset> {
  const prepared = await prepareFile(file, options.contentType);
  try {
    const created = await unwrap(
      client.api.POST('/api/v1/catalog/assets', {
        body: { retention: options.retention ?? 'standalone', upload: describe(prepared) },
        signal: options.signal,
      }),
    );
    return await sendAndConfirm(client, created.assetId, created.upload, prepared, options);
  } finally {
    await prepared.dispose();
  }
}
