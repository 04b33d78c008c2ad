import type { CuePointsResult, Marker, MarkerType } from '@catalog/contracts';
import { backoffDelay, inTenantScope, newId, withoutTenant, type Kysely, type Logger } from '@catalog/platform';
import type { CatalogMarkers } from '../integration/catalog-markers.js';
import type { JobRow } from '../persistence/jobs.js';
import {
  claimPendingMarkers,
  newerCuePointsJob,
  recordMarkersAttemptFailed,
  recordMarkersOutcome,
  type PendingMarkers,
} from '../persistence/marker-retries.js';
import type { AnalysisDb, MarkersOutcome } from '../persistence/tables.js';

/** Which marker each cue point becomes (decision 0088). */
const MARKER_OF: ReadonlyArray<[keyof CuePointsResult, MarkerType]> = [
  ['cueInMs', 'cue_in'],
  ['introEndMs', 'intro_end'],
  ['outroStartMs', 'outro_start'],
  ['nextTrackStartMs', 'segue'],
  ['cueOutMs', 'cue_out'],
];

export function cuePointMarkers(result: CuePointsResult): Marker[] {
  return MARKER_OF.flatMap(([field, type]) => {
    const positionMs = result[field];
    return positionMs === null ? [] : [{ type, positionMs }];
  });
}

export interface MarkerRetrySettings {
  /** Tries without a definite answer before the job's markers are given up (logged, recorded `gave_up`). */
  maxAttempts: number;
  /** Wait after the first try without an answer; doubles for each after, up to `retryMaxMs`. */
  retryMinMs: number;
  retryMaxMs: number;
  /** Jobs one pass of the retry task asks for. */
  batchSize: number;
}

export interface MarkerWriterDeps {
  db: Kysely<AnalysisDb>;
  catalog: CatalogMarkers;
  logger: Logger;
  settings: MarkerRetrySettings;
}

/** A claim outlasts the catalog call's longest wait, so that no other claimer asks meanwhile. */
const claimMs = (deps: MarkerWriterDeps) => deps.catalog.timeoutMs + 5_000;

/**
 * One try at a claimed job's markers. Any definite answer of the catalog ends the job's tries:
 * `applied`, `unchanged`, `set_by_hand`, `not_enabled`, or a 4xx (`refused`: the version gone,
 * markers it does not take); so does a newer cue_points job of the version (`superseded`). No
 * answer (not running, timeout) or a 5xx is counted and tried again after a backoff, until the
 * last attempt (`gave_up`, logged). Never throws.
 */
async function tryMarkers(deps: MarkerWriterDeps, job: PendingMarkers): Promise<'answered' | 'no_answer'> {
  const { db, logger, settings } = deps;
  const log = { jobId: job.id, versionId: job.version_id, attempt: job.markers_attempts + 1 };
  try {
    return await inTenantScope(db, job.tenant_id, async (scoped) => {
      const answered = async (outcome: MarkersOutcome, error?: string) => {
        await recordMarkersOutcome(scoped, job, { outcome, tried: outcome !== 'superseded', ...(error ? { error } : {}) });
        return 'answered' as const;
      };
      if (await newerCuePointsJob(scoped, job)) return answered('superseded');
      const call = { tenantId: job.tenant_id, keyId: null, sourceSystem: job.source_system, requestId: newId() };
      const body = { versionId: job.version_id!, markers: cuePointMarkers(job.result as CuePointsResult) };
      const reply = await deps.catalog.apply(call, body);
      if (reply.ok) return answered(reply.outcome);
      const { error } = reply;
      if (reply.status < 500) {
        logger.info({ ...log, error }, 'the catalog refused the cue points as markers');
        return answered('refused', error);
      }
      if (job.markers_attempts + 1 >= settings.maxAttempts) {
        logger.error({ ...log, error }, 'giving up writing cue points as markers: the catalog gave no answer');
        await recordMarkersOutcome(scoped, job, { outcome: 'gave_up', tried: true, error });
        return 'no_answer';
      }
      const retryInMs = backoffDelay({ minMs: settings.retryMinMs, maxMs: settings.retryMaxMs, jitter: 0 }, job.markers_attempts + 1);
      logger.warn({ ...log, error, retryInMs }, 'writing cue points as markers failed; trying again later');
      await recordMarkersAttemptFailed(scoped, job, error, retryInMs);
      return 'no_answer';
    });
  } catch (error) {
    // The database or the bus failed otherwise: the claim runs out and a later pass tries again.
    logger.warn({ ...log, err: error }, 'writing cue points as markers failed');
    return 'no_answer';
  }
}

/**
 * After a `cue_points` job of a version succeeded (its result committed): its cue points as the
 * version's markers at once (decision 0088), unless another claimer has the job. Never throws.
 */
export function cuePointMarkerWriter(deps: MarkerWriterDeps) {
  return async (job: JobRow): Promise<void> => {
    if (job.type !== 'cue_points' || job.version_id === null) return;
    try {
      const claimed = await inTenantScope(deps.db, job.tenant_id, (db) =>
        claimPendingMarkers(db, { limit: 1, claimMs: claimMs(deps), jobId: job.id }),
      );
      for (const pending of claimed) await tryMarkers(deps, pending);
    } catch (error) {
      deps.logger.warn({ err: error, jobId: job.id }, 'claiming the cue points of a job as markers failed; the retry task will');
    }
  };
}

/**
 * One pass of the retry task (every tenant's jobs, outside any tenant): succeeded cue_points jobs
 * of versions with no answer yet whose next try is due, a bounded batch, one call at a time. The
 * pass ends at the first try the catalog does not answer (the rest of the batch is tried once its
 * claim ran out, not a timeout each now). Answers how many it tried.
 */
export async function retryPendingMarkers(deps: MarkerWriterDeps): Promise<number> {
  const claimed = await withoutTenant(() => claimPendingMarkers(deps.db, { limit: deps.settings.batchSize, claimMs: claimMs(deps) }));
  let tried = 0;
  for (const job of claimed) {
    tried += 1;
    if ((await tryMarkers(deps, job)) === 'no_answer') break;
  }
  return tried;
}
