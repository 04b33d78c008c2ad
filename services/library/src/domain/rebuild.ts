import { createBackoff, inTenantScope, inTenantTransaction, sleep, type Logger } from '@catalog/platform';
import { entityPosition, markProjection, projectionVersion } from '../persistence/projection.js';
import { readEntityState, writeTrack, type ProjectionDeps, type ProjectionOutcome } from './projection.js';

/**
 * The version of the projection's rules: raise it when a change of the code changes what a track
 * holds, and every replica's start rebuilds the tracks (decision 0104).
 */
export const PROJECTION_VERSION = 1;

export interface RebuildDeps extends ProjectionDeps {
  logger: Logger;
}

export interface RebuildResult {
  tenants: number;
  entities: number;
  outcomes: Partial<Record<ProjectionOutcome, number>>;
}

/**
 * Refreshes one entity from the catalog as the rebuild does: its track is written only if no live
 * event of the entity was applied between the read of its position and the write (that event's
 * refresh read a state at least as new), so the rebuild never undoes the live projection.
 */
export async function refreshEntity(deps: RebuildDeps, tenantId: string, entityId: string): Promise<ProjectionOutcome> {
  const before = await inTenantScope(deps.db, tenantId, (db) => entityPosition(db, tenantId, entityId));
  const state = await readEntityState(deps, tenantId, entityId, true);
  return inTenantTransaction(deps.db, tenantId, async (trx) => {
    if ((await entityPosition(trx, tenantId, entityId, true)) !== before) return 'stale';
    return writeTrack(trx, state);
  });
}

/**
 * Rebuilds the tracks by reading the catalog (not its tables): every tenant that has entities
 * (`listEntityTenants`), every entity of each (`listEntities`), each refreshed; then records
 * `PROJECTION_VERSION`. Answers go on meanwhile, from the tracks as they are.
 */
export async function rebuildLibrary(deps: RebuildDeps, signal?: AbortSignal): Promise<RebuildResult> {
  const result: RebuildResult = { tenants: 0, entities: 0, outcomes: {} };
  let tenantsAfter: string | null = null;
  do {
    const tenants = await deps.catalog.tenantPage(tenantsAfter);
    for (const tenantId of tenants.tenants) {
      result.tenants += 1;
      let after: string | null = null;
      do {
        if (signal?.aborted) return result;
        const page = await deps.catalog.entityPage(tenantId, after);
        for (const entityId of page.ids) {
          const outcome = await refreshEntity(deps, tenantId, entityId);
          result.entities += 1;
          result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
        }
        after = page.nextCursor;
      } while (after !== null);
    }
    tenantsAfter = tenants.nextCursor;
  } while (tenantsAfter !== null);
  await markProjection(deps.db, PROJECTION_VERSION);
  return result;
}

/**
 * At start: when the projection is missing or of another version, rebuilds it in the background,
 * retrying (the catalog may not answer yet) until it succeeds or the service stops.
 */
export function rebuildWhenNeeded(deps: RebuildDeps): () => Promise<void> {
  const stopping = new AbortController();
  const done = (async () => {
    const backoff = createBackoff({ minMs: 500, maxMs: 30_000 });
    while (!stopping.signal.aborted) {
      try {
        const version = await projectionVersion(deps.db);
        if (version === PROJECTION_VERSION) return;
        deps.logger.info({ from: version, to: PROJECTION_VERSION }, 'rebuilding the library from the catalog');
        const result = await rebuildLibrary(deps, stopping.signal);
        if (!stopping.signal.aborted) deps.logger.info(result, 'library rebuilt');
        return;
      } catch (error) {
        deps.logger.warn({ err: error }, 'rebuilding the library failed; trying again');
        await sleep(backoff.nextDelayMs(), stopping.signal);
      }
    }
  })();
  return async () => {
    stopping.abort();
    await done;
  };
}
