import { commonConfig, defineConfig, Env, eventConsumerEnv, outboxRelayEnv, outboxRelayOptions, type ConfigOf } from '@catalog/platform';

const common = commonConfig('library', 8085);

export const libraryConfig = defineConfig(
  Env.group({
    common: common.schema,
    /** The outbox relay publishing the library's events (track.*) to the events stream. */
    outbox: outboxRelayEnv,
    /** The durable consumer of the catalog product's events that keeps the tracks (decision 0102). */
    catalogEvents: eventConsumerEnv('LIBRARY_CATALOG_EVENTS', 'library-catalog-events'),
    projectionConcurrency: Env.integer({
      env: 'LIBRARY_PROJECTION_CONCURRENCY',
      default: 8,
      minimum: 1,
      maximum: 64,
      description: 'Entities whose catalog events the projection applies at once (each entity in stream order; decision 0106).',
    }),
    catalogRpcTimeoutMs: Env.integer({
      env: 'LIBRARY_CATALOG_RPC_TIMEOUT_MS',
      default: 10_000,
      minimum: 100,
      maximum: 60_000,
      description: 'Longest wait for an answer of the catalog service when the projection reads an entity.',
    }),
  }),
  ({ common: commonValues, outbox, catalogEvents, projectionConcurrency, ...own }, check) => ({
    ...common.build(commonValues, check),
    ...own,
    catalogEvents: { ...catalogEvents, concurrency: projectionConcurrency },
    outbox: outboxRelayOptions(outbox),
  }),
);

export type LibraryConfig = ConfigOf<typeof libraryConfig>;
