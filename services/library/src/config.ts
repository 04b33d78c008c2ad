import { Env, eventConsumerEnv, outboxServiceConfig, rpcTimeoutEnv, type ConfigOf } from '@catalog/platform';

/** The library's variables, besides the common ones and the outbox relay's (track.* events). */
export const libraryConfig = outboxServiceConfig('library', 8085, {
  /** The durable consumer of the catalog product's events that keeps the tracks (decision 0102). */
  catalogEvents: Env.group({
    ...eventConsumerEnv('LIBRARY_CATALOG_EVENTS', 'library-catalog-events').properties,
    slotsPerTenant: Env.integer({
      env: 'LIBRARY_PROJECTION_SLOTS_PER_TENANT',
      default: 2,
      minimum: 1,
      maximum: 64,
      description:
        "Projection slots one tenant's entities hold at once at most: below LIBRARY_PROJECTION_CONCURRENCY, the other tenants always have a slot (decision 0114).",
    }),
  }),
  /** The express path beside it: quiet tenants' entity events applied at the stream's head (decision 0150). */
  expressEvents: Env.group({
    ...eventConsumerEnv('LIBRARY_EXPRESS_EVENTS', 'library-express-events').properties,
    busyEvents: Env.integer({
      env: 'LIBRARY_EXPRESS_BUSY_EVENTS',
      default: 200,
      minimum: 1,
      description:
        "Events of one tenant in 10 s (per replica) beyond which the express path leaves that tenant's events to the main projection: a large import does not slow the others' new entities (decision 0150).",
    }),
  }),
  projectionConcurrency: Env.integer({
    env: 'LIBRARY_PROJECTION_CONCURRENCY',
    default: 3,
    minimum: 1,
    maximum: 64,
    description:
      'Projection slots: batches of entities whose catalog events the projection applies at once (each entity in stream order; decisions 0106, 0111, 0114).',
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
