import { eventConsumerEnv, outboxServiceConfig, rpcTimeoutEnv, type ConfigOf } from '@catalog/platform';

/** The library's variables, besides the common ones and the outbox relay's (track.* events). */
export const libraryConfig = outboxServiceConfig('library', 8085, {
  /** The durable consumer of the catalog product's events that keeps the tracks (decision 0102). */
  catalogEvents: eventConsumerEnv('LIBRARY_CATALOG_EVENTS', 'library-catalog-events'),
  catalogRpcTimeoutMs: rpcTimeoutEnv(
    'LIBRARY_CATALOG_RPC_TIMEOUT_MS',
    'Longest wait for an answer of the catalog service when the projection reads an entity.',
  ),
});

export type LibraryConfig = ConfigOf<typeof libraryConfig>;
