import type { Logger } from '@catalog/platform';
import type { AssetConfig } from '../../config.js';
import { FsBlobStore } from './fs-store.js';
import type { UrlSigner } from './signing.js';
import type { BlobStore } from './store.js';

export * from './store.js';
export { FsBlobStore, UPLOAD_PATH_PREFIX, type StagedUpload } from './fs-store.js';
export { createUrlSigner, randomSigningSecret, type UrlSigner } from './signing.js';

/**
 * The configured backend. The s3 backend (and the `minio` client, some 30 MB of resident memory)
 * is loaded only when it is used.
 */
export async function createBlobStore(config: AssetConfig, signer: UrlSigner, logger: Logger): Promise<BlobStore> {
  if (config.blob.backend === 's3') {
    const { S3BlobStore } = await import('./s3-store.js');
    return new S3BlobStore(config.blob, logger);
  }
  return new FsBlobStore(config.blob.dir, signer, config.publicBaseUrl);
}
