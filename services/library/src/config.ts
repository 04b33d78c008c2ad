import { commonConfig, defineConfig, Env, eventConsumerEnv, outboxRelayEnv, outboxRelayOptions, type ConfigOf } from '@catalog/platform';

const common = commonConfig('library', 8085);

export const libraryConfig = defineConfig(
  Env.group({
    common: common.schema,
    /** The outbox relay publishing the library's events (track.*) to the events stream. */
    outbox: outboxRelayEnv,
    /** The durable consumer of the catalog product's events that keeps the tracks (decision 0102). */
    catalogEvents: eventConsumerEnv('LIBRARY_CATALOG_EVENTS', 'library-catalog-events'),
    catalogRpcTimeoutMs: Env.integer({
      env: 'LIBRARY_CATALOG_RPC_TIMEOUT_MS',
      default: 10_000,
      minimum: 100,
      maximum: 60_000,
      description: 'Longest wait for an answer of the catalog service when the projection reads an entity.',
    }),
  }),
  ({ common: commonValues, outbox, ...own }, check) => ({
    ...common.build(commonValues, check),
    ...own,
    outbox: outboxRelayOptions(outbox),
  }),
);

export type LibraryConfig = ConfigOf<typeof libraryConfig>;
