import { Env, eventConsumerEnv, outboxServiceConfig, rpcTimeoutEnv, type ConfigOf } from '@catalog/platform';

/** The library's variables, besides the common ones and the outbox relay's (track.* events). */
export const libraryConfig = outboxServiceConfig('library', 8085, {
  /** The durable consumer of the catalog product's events that keeps the tracks (decision 0102). */
  catalogEvents: eventConsumerEnv('LIBRARY_CATALOG_EVENTS', 'library-catalog-events'),
  projectionConcurrency: Env.integer({
    env: 'LIBRARY_PROJECTION_CONCURRENCY',
    default: 2,
    minimum: 1,
    maximum: 64,
    description: 'Entities whose catalog events the projection applies at once (each entity in stream order; decision 0106).',
  }),
  projectionLanesPerBatch: Env.integer({
    env: 'LIBRARY_PROJECTION_LANES_PER_BATCH',
    default: 100,
    minimum: 1,
    maximum: 200,
    description:
      'Entities waiting for the projection that one refresh takes together at most: read in one catalog call, written in one transaction (decision 0111).',
  }),
  catalogRpcTimeoutMs: rpcTimeoutEnv(
    'LIBRARY_CATALOG_RPC_TIMEOUT_MS',
    'Longest wait for an answer of the catalog service when the projection reads an entity.',
  ),
});

export type LibraryConfig = ConfigOf<typeof libraryConfig>;
