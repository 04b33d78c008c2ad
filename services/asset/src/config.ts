import { commonConfig, defineConfig, Env, eventConsumerEnv, type ConfigCheck, type ConfigOf, type EnvValues } from '@catalog/platform';
// Type only: the minio client itself is loaded lazily, with the s3 backend.
import type { S3Settings } from './persistence/blob/s3-store.js';

export type BlobConfig = { backend: 'fs'; dir: string } | ({ backend: 's3' } & S3Settings);

const common = commonConfig('asset', 8082);
const GiB = 1024 * 1024 * 1024;
const HTTP = ['http', 'https'];

const blobEnv = Env.group({
  backend: Env.oneOf(['fs', 's3'], {
    env: 'BLOB_BACKEND',
    default: 'fs',
    description: 'Where the files are: `fs` (a directory) or `s3` (S3 or MinIO).',
  }),
  dir: Env.string({ env: 'BLOB_DIR', default: 'data/blobs', description: 'The directory of the `fs` backend.' }),
  endpoint: Env.optional(
    Env.url({ env: 'S3_ENDPOINT', protocols: HTTP, description: 'Where the service reaches S3; required with `s3`.' }),
  ),
  publicEndpoint: Env.optional(
    Env.url({
      env: 'S3_PUBLIC_ENDPOINT',
      protocols: HTTP,
      defaultText: '`S3_ENDPOINT`',
      description: 'Where clients reach S3 (upload URLs are signed for this host).',
    }),
  ),
  accessKey: Env.optional(Env.secret({ env: 'S3_ACCESS_KEY', description: 'Required with `s3`.' })),
  secretKey: Env.optional(Env.secret({ env: 'S3_SECRET_KEY', minLength: 8, description: 'Required with `s3`.' })),
  bucket: Env.string({ env: 'S3_BUCKET', default: 'catalog-assets', description: 'The bucket of the files (`s3`).' }),
  region: Env.string({ env: 'S3_REGION', default: 'us-east-1', description: 'The region URLs are signed for (`s3`).' }),
});

function blobConfig(
  { backend, dir, endpoint, publicEndpoint, accessKey, secretKey, bucket, region }: EnvValues<typeof blobEnv>,
  check: ConfigCheck,
): BlobConfig {
  if (backend === 'fs') return { backend, dir };
  const s3Endpoint = check.required('S3_ENDPOINT', endpoint);
  return {
    backend,
    endpoint: s3Endpoint,
    publicEndpoint: publicEndpoint ?? s3Endpoint,
    accessKey: check.required('S3_ACCESS_KEY', accessKey),
    secretKey: check.required('S3_SECRET_KEY', secretKey),
    bucket,
    region,
  };
}

/** `http://localhost:<PORT>`: the gateway on this machine (`npm start`). */
const localGateway = (port: number | undefined): string => `http://localhost:${port ? port : 8080}`;

export const assetConfig = defineConfig(
  Env.group({
    common: common.schema,
    blob: blobEnv,
    gatewayPort: Env.optional(
      Env.integer({
        env: 'PORT',
        minimum: 0,
        maximum: 65535,
        description: "The gateway's port on this machine, for `PUBLIC_BASE_URL`'s default.",
      }),
    ),
    publicBaseUrl: Env.optional(
      Env.url({
        env: 'PUBLIC_BASE_URL',
        protocols: HTTP,
        defaultText: 'http://localhost:`PORT` (8080)',
        description: 'Base of the public URLs (the gateway), e.g. https://api.example.com; `fs` upload URLs start with it.',
      }),
    ),
    internalUrl: Env.optional(
      Env.string({
        env: 'ASSET_INTERNAL_URL',
        defaultText: 'the bound address',
        description: "Base URL at which the gateway reaches this replica's HTTP listener.",
      }),
    ),
    signingSecret: Env.optional(
      Env.secret({
        env: 'BLOB_SIGNING_SECRET',
        minLength: 32,
        defaultText: 'random per process (one replica only)',
        description: 'HMAC key of the signed blob URLs (`fs`), the same on every replica.',
      }),
    ),
    maxUploadBytes: Env.integer({ env: 'ASSET_MAX_BYTES', default: 4 * GiB, minimum: 1, description: 'Largest file accepted.' }),
    uploadUrlTtlSeconds: Env.integer({
      env: 'ASSET_UPLOAD_URL_TTL_SECONDS',
      default: 3600,
      minimum: 1,
      maximum: 7 * 24 * 3600,
      description: 'Lifetime of an upload URL.',
    }),
    unconfirmedGraceSeconds: Env.integer({
      env: 'ASSET_UNCONFIRMED_GRACE_SECONDS',
      default: 24 * 3600,
      minimum: 0,
      description: 'An asset still awaiting its upload expires this long after its upload URL did.',
    }),
    standaloneRetentionSeconds: Env.integer({
      env: 'ASSET_STANDALONE_RETENTION_SECONDS',
      default: 24 * 3600,
      minimum: 1,
      description: 'A confirmed standalone asset expires this long after its confirmation.',
    }),
    sweepIntervalMs: Env.integer({
      env: 'ASSET_SWEEP_INTERVAL_MS',
      default: 60_000,
      minimum: 10,
      description: 'How often the retention sweeper runs.',
    }),
    sweepBatchSize: Env.integer({
      env: 'ASSET_SWEEP_BATCH_SIZE',
      default: 100,
      minimum: 1,
      maximum: 10_000,
      description: 'Expired assets the sweeper removes per round.',
    }),
    /** The durable consumer of the catalog's `version.deleted` events, which releases deleted versions' files. */
    versionEvents: eventConsumerEnv('ASSET_VERSION_EVENTS', 'asset-version-events'),
    downloadUrlTtlSeconds: Env.integer({
      env: 'ASSET_DOWNLOAD_URL_TTL_SECONDS',
      default: 60,
      minimum: 1,
      maximum: 3600,
      description: 'Lifetime of the internal download URLs the gateway follows at once.',
    }),
    ffprobePath: Env.string({
      env: 'FFPROBE_PATH',
      default: 'ffprobe',
      description: 'The ffprobe program; `/readyz` fails while it cannot run.',
    }),
    probeTimeoutMs: Env.integer({
      env: 'ASSET_PROBE_TIMEOUT_MS',
      default: 30_000,
      minimum: 100,
      description: 'Longest a confirmation may read audio headers with ffprobe.',
    }),
    confirmWaitMs: Env.integer({
      env: 'ASSET_CONFIRM_WAIT_MS',
      default: 4_000,
      minimum: 10,
      maximum: 60_000,
      description:
        "Longest a confirmation waits for its upload's verification (reading the object on `s3`) before it answers 503 " +
        '`confirmation_in_progress` while the verification goes on (decision 0148); with `ASSET_CATALOG_RPC_TIMEOUT_MS`, keep it ' +
        "below the gateway's `RPC_TIMEOUT_MS`.",
    }),
    catalogRpcTimeoutMs: Env.integer({
      env: 'ASSET_CATALOG_RPC_TIMEOUT_MS',
      default: 5_000,
      minimum: 100,
      maximum: 60_000,
      description:
        "Longest a confirmation waits for the catalog to record a version's file (decision 0115); keep it below the gateway's `RPC_TIMEOUT_MS`.",
    }),
  }),
  ({ common: commonValues, blob, gatewayPort, publicBaseUrl, internalUrl, ...own }, check) => ({
    ...common.build(commonValues, check),
    ...own,
    blob: blobConfig(blob, check),
    publicBaseUrl: (publicBaseUrl ?? localGateway(gatewayPort)).replace(/\/+$/, ''),
    internalUrl: internalUrl?.replace(/\/+$/, ''),
  }),
);

export type AssetConfig = ConfigOf<typeof assetConfig>;
