import { AppError, createBackoff, inTenantScope, inTenantTransaction, sleep, type Logger } from '@catalog/platform';
import { entityPosition, markProjection, projectionVersion, trackEntityPage, withRebuildLock } from '../persistence/projection.js';
import { READ_ALL, readEntityState, writeTrack, type ProjectionDeps, type ProjectionOutcome } from './projection.js';
import { restoreAssignments } from './assignment-restore.js';
import { restoreRelations } from './relation-projection.js';

/**
 * The version of the projection's rules: raise it when a change of the code changes what a track
 * holds, and every replica's start rebuilds the tracks (decision 0104).
 */
export const PROJECTION_VERSION = 1;

export interface RebuildDeps extends ProjectionDeps {
  logger: Logger;
  /** Whether the tenant subscribes to the library: the rebuild skips the others (decision 0149). */
  subscribed: (tenantId: string) => Promise<boolean>;
  /**
   * How long the catalog may not answer at start before the wait is a WARN (default
   * `CATALOG_START_GRACE_MS`): services start together, so at first it is only still starting.
   */
  catalogStartGraceMs?: number;
}

/** The catalog usually answers within this of the library's start (`npm start`, a rolling deploy). */
export const CATALOG_START_GRACE_MS = 60_000;

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
export async function refreshEntity(deps: ProjectionDeps, tenantId: string, entityId: string): Promise<ProjectionOutcome> {
  const before = await inTenantScope(deps.db, tenantId, (db) => entityPosition(db, tenantId, entityId));
  const state = await readEntityState(deps, tenantId, entityId, READ_ALL);
  return inTenantTransaction(deps.db, tenantId, async (trx) => {
    if ((await entityPosition(trx, tenantId, entityId, true)) !== before) return 'stale';
    return writeTrack(trx, state);
  });
}

/** Refreshes an entity in the rebuild and counts its outcome. */
async function refreshCounted(deps: ProjectionDeps, result: RebuildResult, tenantId: string, entityId: string): Promise<void> {
  const outcome = await refreshEntity(deps, tenantId, entityId);
  result.entities += 1;
  result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
}

/**
 * Rebuilds one tenant: refreshes every entity the catalog lists (and adds the relations it lists of
 * it that the library lacks, decision 0136), adds the assignments of its integrations that the
 * library lacks (decision 0142), then every stored track the
 * catalog did not list (an entity deleted while no event said so: its refresh removes the track,
 * or keeps it when the entity was created after the listing). False when stopped midway.
 */
async function rebuildTenant(
  deps: Omit<RebuildDeps, 'subscribed'>,
  result: RebuildResult,
  tenantId: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const listed = new Set<string>();
  let after: string | null = null;
  do {
    if (signal?.aborted) return false;
    const page = await deps.catalog.entityPage(tenantId, after);
    for (const entityId of page.ids) {
      listed.add(entityId);
      await refreshCounted(deps, result, tenantId, entityId);
      await restoreRelations(deps, tenantId, entityId);
    }
    after = page.nextCursor;
  } while (after !== null);
  if (!(await restoreAssignments(deps, tenantId, signal))) return false;
  let swept: string | null = null;
  for (;;) {
    if (signal?.aborted) return false;
    const ids = await inTenantScope(deps.db, tenantId, (db) => trackEntityPage(db, tenantId, swept, 500));
    for (const entityId of ids) if (!listed.has(entityId)) await refreshCounted(deps, result, tenantId, entityId);
    swept = ids[ids.length - 1] ?? null;
    if (ids.length < 500) return true;
  }
}

/**
 * Rebuilds one tenant's tracks now (a tenant that has just subscribed, decision 0149): every
 * entity the catalog lists refreshed, with the `track.*` events of what the library lacked.
 */
export async function rebuildOneTenant(
  deps: Omit<RebuildDeps, 'subscribed'>,
  tenantId: string,
  signal?: AbortSignal,
): Promise<RebuildResult> {
  const result: RebuildResult = { tenants: 1, entities: 0, outcomes: {} };
  await rebuildTenant(deps, result, tenantId, signal);
  return result;
}

/**
 * Rebuilds the tracks by reading the catalog (not its tables): every tenant that has entities
 * (`listEntityTenants`) and subscribes to the library, every entity of each (`listEntities`), each refreshed, and the tracks of
 * entities the catalog no longer lists; then records `PROJECTION_VERSION`. Answers go on
 * meanwhile, from the tracks as they are. The caller holds the rebuild lock (`withRebuildLock`).
 */
export async function rebuildLibrary(deps: RebuildDeps, signal?: AbortSignal): Promise<RebuildResult> {
  const result: RebuildResult = { tenants: 0, entities: 0, outcomes: {} };
  let tenantsAfter: string | null = null;
  do {
    const tenants = await deps.catalog.tenantPage(tenantsAfter);
    for (const tenantId of tenants.tenants) {
      if (!(await deps.subscribed(tenantId))) continue;
      result.tenants += 1;
      if (!(await rebuildTenant(deps, result, tenantId, signal))) return result;
    }
    tenantsAfter = tenants.nextCursor;
  } while (tenantsAfter !== null);
  await markProjection(deps.db, PROJECTION_VERSION);
  return result;
}

/** No catalog answers (none started yet, or all restarting): the bus call's 503 `service_unavailable`. */
function catalogNotAnswering(error: unknown): boolean {
  return error instanceof AppError && error.code === 'service_unavailable';
}

/**
 * Says why a rebuild attempt failed. A catalog that does not answer yet is expected at start: one
 * INFO line, then a WARN at each attempt once it has not answered for the grace period, neither
 * with a stack (the reason is known). Anything else is a WARN with the error.
 */
function rebuildAttemptFailed(deps: RebuildDeps, error: unknown, waitingSince: number, attempt: number): void {
  if (!catalogNotAnswering(error)) {
    deps.logger.warn({ err: error }, 'rebuilding the library failed; trying again');
    return;
  }
  const waitedMs = Date.now() - waitingSince;
  const waited = { catalog: (error as AppError).message, waitedSeconds: Math.round(waitedMs / 1000) };
  if (waitedMs >= (deps.catalogStartGraceMs ?? CATALOG_START_GRACE_MS)) {
    deps.logger.warn(waited, 'the catalog has not come up; the library rebuild waits for it');
  } else if (attempt === 1) {
    deps.logger.info(waited, 'waiting for the catalog to start before rebuilding the library');
  }
}

/**
 * At start: when the projection is missing or of another version, rebuilds it in the background,
 * retrying (the catalog may not answer yet) until it succeeds or the service stops.
 */
export function rebuildWhenNeeded(deps: RebuildDeps): () => Promise<void> {
  const stopping = new AbortController();
  const done = (async () => {
    const backoff = createBackoff({ minMs: 500, maxMs: 30_000 });
    // The attempts failed in a row and when the first of them did (the wait for the catalog).
    const failed = { since: 0, attempts: 0 };
    while (!stopping.signal.aborted) {
      try {
        const version = await projectionVersion(deps.db);
        if (version === PROJECTION_VERSION) return;
        // One replica rebuilds (decision 0104); the others keep serving and look again later.
        const locked = await withRebuildLock(deps.db, async () => {
          if ((await projectionVersion(deps.db)) === PROJECTION_VERSION) return;
          deps.logger.info({ from: version, to: PROJECTION_VERSION }, 'rebuilding the library from the catalog');
          const result = await rebuildLibrary(deps, stopping.signal);
          if (!stopping.signal.aborted) deps.logger.info(result, 'library rebuilt');
        });
        if (locked.ran) return;
        deps.logger.info('another replica is rebuilding the library; looking again later');
        await sleep(backoff.nextDelayMs(), stopping.signal);
      } catch (error) {
        if (failed.attempts === 0) failed.since = Date.now();
        failed.attempts += 1;
        rebuildAttemptFailed(deps, error, failed.since, failed.attempts);
        await sleep(backoff.nextDelayMs(), stopping.signal);
      }
    }
  })();
  return async () => {
    stopping.abort();
    await done;
  };
}
