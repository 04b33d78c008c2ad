import type { Asset } from '@catalog/contracts';
import { subjectsFor, type NatsConnection } from '@catalog/platform';
import { serveStandIn, testCallContext, testLogger } from '@catalog/testing';

/** What the asset service told the catalog with `recordAssetState`, and in whose name. */
export interface RecordedState {
  asset: Asset;
  tenantId: string;
  sourceSystem: string;
}

export interface CatalogStandIn {
  /** Every call received, in order. */
  recorded: RecordedState[];
  stop(): Promise<void>;
}

/**
 * For tests that play the catalog towards the asset service (it runs without one here): answers
 * the catalog's `recordAssetState` on the stack's prefix (decision 0115), checking the call context
 * as the catalog does, and keeps what it was told. Its replies are held to the route table's schema.
 */
export async function serveAsCatalog(nc: NatsConnection, natsPrefix: string): Promise<CatalogStandIn> {
  const recorded: RecordedState[] = [];
  const server = await serveStandIn({
    nc,
    subjects: subjectsFor(natsPrefix),
    service: 'catalog',
    logger: testLogger('catalog-stand-in'),
    callContext: testCallContext(),
    handlers: {
      recordAssetState: async (request, call) => {
        recorded.push({ asset: request.body as Asset, tenantId: call.tenantId, sourceSystem: call.sourceSystem });
        return { body: { analysesRequested: false } };
      },
    },
  });
  return { recorded, stop: () => server.stop() };
}
