import { readCommonConfig, readOutboxRelayConfig, type CommonConfig, type EnvReader, type OutboxRelayOptions } from '@catalog/platform';
import { DEFAULT_MAX_VERSIONS_PER_ENTITY } from './domain/versions.js';
import type { AssetEventsConsumerConfig } from './messaging/asset-events-consumer.js';

export interface CatalogConfig extends CommonConfig {
  /** The outbox relay publishing the catalog's events to the events stream (`OUTBOX_*`). */
  outbox: OutboxRelayOptions;
  /** The durable consumer of asset events that keeps the upload status of versions' files. */
  assetEvents: AssetEventsConsumerConfig;
  /** Versions an entity may have at most (the version listing is not paginated). */
  maxVersionsPerEntity: number;
  /** Longest wait for an answer of the asset service when adding a version. */
  assetRpcTimeoutMs: number;
}

export function readCatalogConfig(env: EnvReader): CatalogConfig {
  return {
    ...readCommonConfig(env, 'catalog', 8081),
    outbox: readOutboxRelayConfig(env),
    assetEvents: {
      durable: env.string('CATALOG_ASSET_EVENTS_CONSUMER', 'catalog-asset-events'),
      ackWaitMs: env.int('CATALOG_ASSET_EVENTS_ACK_WAIT_MS', 30_000, { min: 1_000 }),
      maxAckPending: env.int('CATALOG_ASSET_EVENTS_MAX_ACK_PENDING', 1_000, { min: 1 }),
    },
    maxVersionsPerEntity: env.int('CATALOG_MAX_VERSIONS_PER_ENTITY', DEFAULT_MAX_VERSIONS_PER_ENTITY, { min: 1, max: 10_000 }),
    assetRpcTimeoutMs: env.int('CATALOG_ASSET_RPC_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
  };
}
