import {
  readCommonConfig,
  readEventConsumerConfig,
  readOutboxRelayConfig,
  type CommonConfig,
  type EnvReader,
  type EventConsumerConfig,
  type OutboxRelayOptions,
} from '@catalog/platform';
import { DEFAULT_MAX_VERSIONS_PER_ENTITY } from './domain/versions.js';

export interface CatalogConfig extends CommonConfig {
  /** The outbox relay publishing the catalog's events to the events stream (`OUTBOX_*`). */
  outbox: OutboxRelayOptions;
  /** The durable consumer of asset events that keeps the upload status of versions' files. */
  assetEvents: EventConsumerConfig;
  /** Versions an entity may have at most (and the version listing's page size when the request sets none). */
  maxVersionsPerEntity: number;
  /** Longest wait for an answer of the asset service when adding a version. */
  assetRpcTimeoutMs: number;
  /** How often the sweeper of attach intents runs (decision 0025). */
  attachSweepIntervalMs: number;
  /**
   * How old an attach intent must be before the sweeper takes it: covers its version's creation from
   * the intent to the version's transaction, attach call included (decision 0058); keep it well above
   * `assetRpcTimeoutMs`. A version whose intent was taken is refused (503), never written uncovered.
   */
  attachIntentGraceMs: number;
}

export function readCatalogConfig(env: EnvReader): CatalogConfig {
  return {
    ...readCommonConfig(env, 'catalog', 8081),
    outbox: readOutboxRelayConfig(env),
    assetEvents: readEventConsumerConfig(env, 'CATALOG_ASSET_EVENTS', 'catalog-asset-events'),
    maxVersionsPerEntity: env.int('CATALOG_MAX_VERSIONS_PER_ENTITY', DEFAULT_MAX_VERSIONS_PER_ENTITY, { min: 1, max: 10_000 }),
    assetRpcTimeoutMs: env.int('CATALOG_ASSET_RPC_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
    attachSweepIntervalMs: env.int('CATALOG_ATTACH_SWEEP_INTERVAL_MS', 60_000, { min: 10 }),
    attachIntentGraceMs: env.int('CATALOG_ATTACH_INTENT_GRACE_MS', 60_000, { min: 0 }),
  };
}
