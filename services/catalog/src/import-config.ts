import { Env } from '@catalog/platform';

/** The variables of import jobs (decision 0134): their work queue's consumer, chunks and attempts. */
export const importJobsEnv = Env.group({
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
