import { sql, type Kysely } from 'kysely';
import type { JobRow } from './jobs.js';
import type { AnalysisDb, MarkersOutcome } from './tables.js';

/**
 * The cue points of a version's `cue_points` job as its markers, durably (decision 0088): a job
 * waits for the catalog's definite answer (`markers_outcome`) and is claimed for each try by
 * pushing `markers_next_attempt_at` past the call's longest wait, so two replicas (or the worker
 * and the retry task) never ask at once. No transaction stays open across the call (0058).
 */
export type PendingMarkers = Pick<
  JobRow,
  'id' | 'tenant_id' | 'version_id' | 'source_system' | 'result' | 'markers_attempts' | 'finished_at'
>;

const PENDING_COLUMNS = ['id', 'tenant_id', 'version_id', 'source_system', 'result', 'markers_attempts', 'finished_at'] as const;

const claimUntil = (claimMs: number) => sql<Date>`clock_timestamp() + make_interval(secs => ${claimMs / 1000})`;

/**
 * Claims up to `limit` succeeded cue_points jobs of versions whose markers await an answer and
 * whose next try is due (every tenant's outside a tenant, one tenant's within it, or the one job
 * `jobId`): the longest due first (then the earliest finished), rows another claimer holds skipped.
 */
export function claimPendingMarkers(
  db: Kysely<AnalysisDb>,
  settings: { limit: number; claimMs: number; jobId?: string },
): Promise<PendingMarkers[]> {
  let due = db
    .selectFrom('jobs')
    .select('id')
    .where('type', '=', 'cue_points')
    .where('status', '=', 'SUCCEEDED')
    .where('version_id', 'is not', null)
    .where('markers_outcome', 'is', null)
    .where((eb) => eb.or([eb('markers_next_attempt_at', 'is', null), eb('markers_next_attempt_at', '<=', sql<Date>`clock_timestamp()`)]));
  if (settings.jobId !== undefined) due = due.where('id', '=', settings.jobId);
  const claimable = due
    .orderBy(sql`markers_next_attempt_at nulls first`)
    .orderBy('finished_at')
    .limit(settings.limit)
    .forUpdate()
    .skipLocked();
  return db
    .updateTable('jobs')
    .set({ markers_next_attempt_at: claimUntil(settings.claimMs) })
    .where('id', 'in', claimable)
    .returning([...PENDING_COLUMNS])
    .execute();
}

/** Whether a cue_points job of the same version succeeded after this one (its cue points are the ones to write). */
export async function newerCuePointsJob(db: Kysely<AnalysisDb>, job: PendingMarkers): Promise<boolean> {
  const newer = await db
    .selectFrom('jobs')
    .select('id')
    .where('tenant_id', '=', job.tenant_id)
    .where('version_id', '=', job.version_id)
    .where('type', '=', 'cue_points')
    .where('status', '=', 'SUCCEEDED')
    .where('id', '<>', job.id)
    .where('finished_at', '>', job.finished_at ?? new Date(0))
    .executeTakeFirst();
  return newer !== undefined;
}

/** Records the definite answer (or the give-up) of a try (`tried`: a call was made): the job is not tried again. */
export async function recordMarkersOutcome(
  db: Kysely<AnalysisDb>,
  job: Pick<JobRow, 'id' | 'tenant_id'>,
  end: { outcome: MarkersOutcome; tried: boolean; error?: string },
): Promise<void> {
  const { outcome, tried, error = null } = end;
  await db
    .updateTable('jobs')
    .set({
      markers_outcome: outcome,
      markers_attempts: sql<number>`markers_attempts + ${tried ? 1 : 0}`,
      markers_error: error === null ? null : error.slice(0, 2_000),
      markers_applied_at: sql<Date>`clock_timestamp()`,
      markers_next_attempt_at: null,
    })
    .where('tenant_id', '=', job.tenant_id)
    .where('id', '=', job.id)
    .execute();
}

/** Counts a try that got no definite answer; the next one not before `retryInMs`. */
export async function recordMarkersAttemptFailed(
  db: Kysely<AnalysisDb>,
  job: Pick<JobRow, 'id' | 'tenant_id'>,
  error: string,
  retryInMs: number,
): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      markers_attempts: sql<number>`markers_attempts + 1`,
      markers_error: error.slice(0, 2_000),
      markers_next_attempt_at: claimUntil(retryInMs),
    })
    .where('tenant_id', '=', job.tenant_id)
    .where('id', '=', job.id)
    .where('markers_outcome', 'is', null)
    .execute();
}
