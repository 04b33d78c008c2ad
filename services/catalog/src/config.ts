import { Env, eventConsumerEnv, outboxServiceConfig, rpcTimeoutEnv, type ConfigOf } from '@catalog/platform';
import { DEFAULT_MAX_VERSIONS_PER_ENTITY } from './versions/domain/version-creation.js';

/** The variables of import jobs (decision 0134): their work queue's consumer, chunks and attempts. */
const importJobsEnv = Env.group({
  durable: Env.string({
    env: 'CATALOG_IMPORT_CONSUMER',
    default: 'catalog-import-jobs',
    description: "Durable consumer of the import jobs' job.created events on the events stream, shared by the replicas.",
  }),
  ackWaitMs: Env.integer({
    env: 'CATALOG_IMPORT_ACK_WAIT_MS',
    default: 30_000,
    minimum: 1_000,
    description:
      'A running job tells JetStream it is alive every third of this; a job whose replica died goes to another after it (and resumes from its checkpoint).',
  }),
  concurrency: Env.integer({
    env: 'CATALOG_IMPORT_CONCURRENCY',
    default: 2,
    minimum: 1,
    maximum: 100,
    description: 'Import jobs one replica runs at once, taken fairly between tenants (decision 0150).',
  }),
  maxHeld: Env.integer({
    env: 'CATALOG_IMPORT_MAX_HELD',
    default: 10_000,
    minimum: 1,
    description:
      "Job messages delivered to the replicas and not yet settled (the consumer's max ack pending; decision 0150): each replica holds a few per tenant, the rest wait in the stream.",
  }),
  maxQueuedPerTenant: Env.integer({
    env: 'CATALOG_IMPORT_MAX_QUEUED_PER_TENANT',
    default: 20,
    minimum: 1,
    maximum: 10_000,
    description:
      'Import jobs a tenant may have queued or running at once; a request for another is refused with 429 and Retry-After (decision 0150).',
  }),
  chunkRows: Env.integer({
    env: 'CATALOG_IMPORT_CHUNK_ROWS',
    default: 1_000,
    minimum: 1,
    maximum: 2_000,
    description: "Rows of a file one transaction applies; the job's checkpoint moves by as many.",
  }),
  maxAttempts: Env.integer({
    env: 'CATALOG_IMPORT_MAX_ATTEMPTS',
    default: 5,
    minimum: 1,
    maximum: 100,
    description: 'Deliveries of a job that start it, at most (a crash, the database away); the next one fails it.',
  }),
  maxRowBytes: Env.integer({
    env: 'CATALOG_IMPORT_MAX_ROW_BYTES',
    default: 16_384,
    minimum: 1_024,
    maximum: 1_048_576,
    description:
      'Bytes one row of an import file may have (a JSON line, or a CSV record with all its fields; also the CSV header): a longer row is the row error `row_too_long` and reading resumes after the next line break (decision 0147). What an import holds of its file is about this much.',
  }),
  downloadTimeoutMs: Env.integer({
    env: 'CATALOG_IMPORT_DOWNLOAD_TIMEOUT_MS',
    default: 600_000,
    minimum: 1_000,
    description: "Longest read of an import job's file from the asset service (one read counts its rows, one imports them).",
  }),
});

/** The catalog's variables, besides the common ones and the outbox relay's (its events). */
export const catalogConfig = outboxServiceConfig('catalog', 8081, {
  /** The durable consumer of asset events that keeps the upload status of versions' files. */
  assetEvents: eventConsumerEnv('CATALOG_ASSET_EVENTS', 'catalog-asset-events'),
  /** Import jobs (decision 0134): their work queue and chunks. */
  importJobs: importJobsEnv,
  maxVersionsPerEntity: Env.integer({
    env: 'CATALOG_MAX_VERSIONS_PER_ENTITY',
    default: DEFAULT_MAX_VERSIONS_PER_ENTITY,
    minimum: 1,
    maximum: 10_000,
    description: "Versions an entity may have at most (and the version listing's page size when the request sets none).",
  }),
  assetRpcTimeoutMs: rpcTimeoutEnv(
    'CATALOG_ASSET_RPC_TIMEOUT_MS',
    'Longest wait for an answer of the asset service when adding a version.',
  ),
  attachSweepIntervalMs: Env.integer({
    env: 'CATALOG_ATTACH_SWEEP_INTERVAL_MS',
    default: 60_000,
    minimum: 10,
    description: 'How often the sweeper of attach intents runs (decision 0025).',
  }),
  heartbeatSweepIntervalMs: Env.integer({
    env: 'CATALOG_HEARTBEAT_SWEEP_INTERVAL_MS',
    default: 10_000,
    minimum: 10,
    description:
      'How often the catalog records the lapse of integrations whose heartbeat passed (integration.health_changed, decision 0133); reads show them down at once.',
  }),
  attachIntentGraceMs: Env.integer({
    env: 'CATALOG_ATTACH_INTENT_GRACE_MS',
    default: 60_000,
    minimum: 0,
    description:
      "How old an attach intent must be before the sweeper takes it: covers its version's creation, attach call included " +
      '(decision 0058); keep it well above `CATALOG_ASSET_RPC_TIMEOUT_MS`. A version whose intent was taken is refused (503).',
  }),
});

export type CatalogConfig = ConfigOf<typeof catalogConfig>;
