import { readCommonConfig, readEventConsumerConfig, type CommonConfig, type EnvReader, type EventConsumerConfig } from '@catalog/platform';
// Type only: the minio client itself is loaded lazily, with the s3 backend.
import type { S3Settings } from './blob/s3-store.js';

export type BlobConfig = { backend: 'fs'; dir: string } | ({ backend: 's3' } & S3Settings);

export interface AssetConfig extends CommonConfig {
  blob: BlobConfig;
  /** Base of the public URLs (the gateway), e.g. https://api.example.com; fs upload URLs start with it. */
  publicBaseUrl: string;
  /** Base URL at which the gateway reaches this replica's HTTP listener; defaults to the bound address. */
  internalUrl: string | undefined;
  /** HMAC key of signed blob URLs (fs); the same on every replica. Unset: random per process (one replica only). */
  signingSecret: string | undefined;
  maxUploadBytes: number;
  uploadUrlTtlSeconds: number;
  /** An asset still awaiting its upload expires this long after its upload URL did. */
  unconfirmedGraceSeconds: number;
  /** A confirmed standalone asset expires this long after confirmation. */
  standaloneRetentionSeconds: number;
  sweepIntervalMs: number;
  sweepBatchSize: number;
  /** The durable consumer of the catalog's `version.deleted` events, which releases deleted versions' files. */
  versionEvents: EventConsumerConfig;
  /** Lifetime of the internal download URLs the gateway follows at once. */
  downloadUrlTtlSeconds: number;
  ffprobePath: string;
  /** Longest a confirmation may read audio headers with ffprobe. */
  probeTimeoutMs: number;
}

const GiB = 1024 * 1024 * 1024;

export function readAssetConfig(env: EnvReader): AssetConfig {
  const common = readCommonConfig(env, 'asset', 8082);
  const backend = env.oneOf('BLOB_BACKEND', ['fs', 's3'] as const, 'fs');
  let blob: BlobConfig;
  if (backend === 's3') {
    const endpoint = env.url('S3_ENDPOINT', undefined, ['http', 'https']);
    blob = {
      backend,
      endpoint,
      publicEndpoint: env.url('S3_PUBLIC_ENDPOINT', endpoint, ['http', 'https']),
      accessKey: env.string('S3_ACCESS_KEY'),
      secretKey: env.secret('S3_SECRET_KEY', undefined, 8),
      bucket: env.string('S3_BUCKET', 'catalog-assets'),
      region: env.string('S3_REGION', 'us-east-1'),
    };
  } else {
    blob = { backend, dir: env.string('BLOB_DIR', 'data/blobs') };
  }
  const gatewayPort = env.optionalString('PORT');
  return {
    ...common,
    blob,
    publicBaseUrl: env
      .url('PUBLIC_BASE_URL', `http://localhost:${gatewayPort && gatewayPort !== '0' ? gatewayPort : '8080'}`, ['http', 'https'])
      .replace(/\/+$/, ''),
    internalUrl: env.optionalString('ASSET_INTERNAL_URL')?.replace(/\/+$/, ''),
    signingSecret: env.optionalString('BLOB_SIGNING_SECRET') === undefined ? undefined : env.secret('BLOB_SIGNING_SECRET', undefined, 32),
    maxUploadBytes: env.int('ASSET_MAX_BYTES', 4 * GiB, { min: 1 }),
    uploadUrlTtlSeconds: env.int('ASSET_UPLOAD_URL_TTL_SECONDS', 3600, { min: 1, max: 7 * 24 * 3600 }),
    unconfirmedGraceSeconds: env.int('ASSET_UNCONFIRMED_GRACE_SECONDS', 24 * 3600, { min: 0 }),
    standaloneRetentionSeconds: env.int('ASSET_STANDALONE_RETENTION_SECONDS', 24 * 3600, { min: 1 }),
    sweepIntervalMs: env.int('ASSET_SWEEP_INTERVAL_MS', 60_000, { min: 10 }),
    sweepBatchSize: env.int('ASSET_SWEEP_BATCH_SIZE', 100, { min: 1, max: 10_000 }),
    versionEvents: readEventConsumerConfig(env, 'ASSET_VERSION_EVENTS', 'asset-version-events'),
    downloadUrlTtlSeconds: env.int('ASSET_DOWNLOAD_URL_TTL_SECONDS', 60, { min: 1, max: 3600 }),
    ffprobePath: env.string('FFPROBE_PATH', 'ffprobe'),
    probeTimeoutMs: env.int('ASSET_PROBE_TIMEOUT_MS', 30_000, { min: 100 }),
  };
}
