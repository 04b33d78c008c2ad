import { randomBytes } from 'node:crypto';

/**
 * The asset service's variables for the `s3` blob store (the Helm chart's default) on the MinIO
 * that `npm test` / .ci/run start (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY), in a bucket of its
 * own, which the service creates at start: pass them to `startSystem` / `useSystem({ env })`.
 */
export function s3BlobStore(): Record<string, string> {
  const { S3_ENDPOINT: endpoint, S3_ACCESS_KEY: accessKey, S3_SECRET_KEY: secretKey } = process.env;
  if (!endpoint || !accessKey || !secretKey) {
    throw new Error('s3 tests need S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY: run them with `npm test`, which starts MinIO');
  }
  return {
    BLOB_BACKEND: 's3',
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY: accessKey,
    S3_SECRET_KEY: secretKey,
    S3_BUCKET: `t-${randomBytes(6).toString('hex')}`,
  };
}
