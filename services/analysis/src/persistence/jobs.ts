import { sql, type Kysely, type Selectable } from 'kysely';
import type { AnalysisJobStatus, AnalysisOptions, AnalysisType } from '@catalog/contracts';
import { insertResultParts, storedResult } from './results.js';
import type { AnalysisDb, JobsTable, RequestedSource } from './tables.js';

/**
 * Queries of `analysis.jobs`. API and worker queries run in the job's tenant context (row-level
 * security applies) and filter by tenant too. Transitions are guarded in SQL: a job starts only
 * from QUEUED or RUNNING (a worker taking over from one that died, job-batches.ts), succeeds only
 * from RUNNING, fails only before it ended, so a job ends once whoever tries.
 */
export type JobRow = Selectable<JobsTable>;

export interface NewJob {
  id: string;
  tenantId: string;
  type: AnalysisType;
  source: RequestedSource;
  assetId: string;
  entityId: string | null;
  versionId: string | null;
  dmrn: string | null;
  options: AnalysisOptions;
  cost: number;
  sourceSystem: string;
  idempotencyKey?: string | undefined;
  requestHash?: string | undefined;
  originEventId?: string | undefined;
  /** A job that fails as it is created (an automatic analysis the balance could not pay). */
  failed?: { code: string; message: string } | undefined;
}

/**
 * Inserts a job unless its Idempotency-Key or its (origin event, type) names one already: the new
 * row, or undefined when another has them (a concurrent insert of the same key waits for the first
 * to commit, then yields).
 */
export function insertJob(db: Kysely<AnalysisDb>, job: NewJob): Promise<JobRow | undefined> {
  return db
    .insertInto('jobs')
    .values({
      id: job.id,
      tenant_id: job.tenantId,
      type: job.type,
      status: job.failed ? 'FAILED' : 'QUEUED',
      source: JSON.stringify(job.source),
      asset_id: job.assetId,
      entity_id: job.entityId,
      version_id: job.versionId,
      dmrn: job.dmrn,
      options: JSON.stringify(job.options),
      cost: job.cost,
      source_system: job.sourceSystem,
      idempotency_key: job.idempotencyKey ?? null,
      request_hash: job.requestHash ?? null,
      origin_event_id: job.originEventId ?? null,
      error_code: job.failed?.code ?? null,
      error_message: job.failed?.message ?? null,
      finished_at: job.failed ? sql<Date>`clock_timestamp()` : null,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findJob(db: Kysely<AnalysisDb>, tenantId: string, id: string, options: { forUpdate?: boolean } = {}) {
  let query = db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function findJobByIdempotencyKey(db: Kysely<AnalysisDb>, tenantId: string, key: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId).where('idempotency_key', '=', key).executeTakeFirst();
}

export function findJobsOfOrigin(db: Kysely<AnalysisDb>, tenantId: string, originEventId: string): Promise<JobRow[]> {
  return db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId).where('origin_event_id', '=', originEventId).execute();
}

export interface JobFilter {
  entityId?: string | undefined;
  assetId?: string | undefined;
  type?: AnalysisType | undefined;
  status?: AnalysisJobStatus | undefined;
  /** Jobs older than this one (newest first). */
  beforeId?: string | undefined;
  limit: number;
}

/** A job as listings read it: every column but the result (its summary instead). */
export type ListedJobRow = Omit<JobRow, 'result'>;

const LISTED_COLUMNS = [
  'id',
  'tenant_id',
  'type',
  'status',
  'source',
  'asset_id',
  'entity_id',
  'version_id',
  'dmrn',
  'options',
  'cost',
  'source_system',
  'idempotency_key',
  'request_hash',
  'origin_event_id',
  'attempts',
  'last_error',
  'summary',
  'result_bytes',
  'error_code',
  'error_message',
  'markers_applied_at',
  'markers_outcome',
  'markers_error',
  'markers_attempts',
  'markers_next_attempt_at',
  'batch_lead_id',
  'created_at',
  'started_at',
  'finished_at',
  'updated_at',
] as const satisfies readonly (keyof ListedJobRow)[];

/**
 * The tenant's jobs newest first, without their results (decision 0113); an asset matches jobs
 * that named it and jobs whose source resolved to it.
 */
export function listJobRows(db: Kysely<AnalysisDb>, tenantId: string, filter: JobFilter): Promise<ListedJobRow[]> {
  let query = db.selectFrom('jobs').select(LISTED_COLUMNS).where('tenant_id', '=', tenantId);
  if (filter.entityId !== undefined) query = query.where('entity_id', '=', filter.entityId);
  if (filter.assetId !== undefined) query = query.where('asset_id', '=', filter.assetId);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

/**
 * Ends a RUNNING job with its result (inline, or its parts written too: run it in a transaction)
 * and the result's summary; undefined when it is not RUNNING (it ended already).
 */
export async function succeedJob(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  id: string,
  result: { json: string; summary: unknown },
): Promise<JobRow | undefined> {
  const stored = storedResult(result.json);
  const done = await db
    .updateTable('jobs')
    .set({
      status: 'SUCCEEDED',
      result: stored.inline,
      summary: JSON.stringify(result.summary),
      result_bytes: stored.bytes,
      last_error: null,
      finished_at: sql<Date>`clock_timestamp()`,
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', '=', 'RUNNING')
    .returningAll()
    .executeTakeFirst();
  if (done) await insertResultParts(db, tenantId, id, stored.parts);
  return done;
}

/** Ends a job that has not ended yet with an error; undefined when it ended already. */
export function failJob(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  id: string,
  error: { code: string; message: string },
): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set({
      status: 'FAILED',
      error_code: error.code,
      error_message: error.message,
      finished_at: sql<Date>`clock_timestamp()`,
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', 'in', ['QUEUED', 'RUNNING'])
    .returningAll()
    .executeTakeFirst();
}

/** Notes why an attempt failed (a job retried later shows it in its error if it finally fails). */
export async function recordAttemptError(db: Kysely<AnalysisDb>, tenantId: string, id: string, message: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ last_error: message.slice(0, 2_000), updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', 'in', ['QUEUED', 'RUNNING'])
    .execute();
}

/** The tenant's QUEUED and RUNNING jobs, counted up to `limit` (the cap of decision 0150 needs no more). */
export async function countUnfinishedJobs(db: Kysely<AnalysisDb>, tenantId: string, limit: number): Promise<number> {
  const unfinished = db.selectFrom('jobs').select('id').where('tenant_id', '=', tenantId).where('status', 'in', ['QUEUED', 'RUNNING']);
  return (await unfinished.limit(limit).execute()).length;
}
