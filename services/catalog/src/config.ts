import { Env, eventConsumerEnv, outboxServiceConfig, rpcTimeoutEnv, type ConfigOf } from '@catalog/platform';
import { DEFAULT_MAX_VERSIONS_PER_ENTITY } from './domain/version-creation.js';
import { importJobsEnv } from './import-config.js';

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
