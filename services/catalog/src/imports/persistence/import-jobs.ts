import { sql, type Kysely, type Selectable } from 'kysely';
import type { JobCounts, JobRowError } from '@catalog/contracts';
import type { JobsTable } from '../../persistence/import-tables.js';
import type { CatalogDb } from '../../persistence/tables.js';

/** Queries of `catalog.jobs` (decision 0134); each runs in the tenant's context and filters by tenant too. */
export type JobRow = Selectable<JobsTable>;

export interface NewJobRow {
  id: string;
  tenantId: string;
  assetId: string;
  sourceSystem: string;
}

/** The INSERT of a queued import job, returning its row; run inside a statement that records its job.created. */
export function insertJobQuery(db: Kysely<CatalogDb>, job: NewJobRow) {
  return db
    .insertInto('jobs')
    .values({
      id: job.id,
      tenant_id: job.tenantId,
      type: 'import',
      asset_id: job.assetId,
      state: 'queued',
      source_system: job.sourceSystem,
    })
    .returningAll();
}

export function findJob(db: Kysely<CatalogDb>, tenantId: string, id: string, options: { forUpdate?: boolean } = {}) {
  let query = db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A page of the tenant's jobs, newest first, after job `beforeId` (exclusive) when given. */
export function listJobRows(db: Kysely<CatalogDb>, tenantId: string, page: { limit: number; beforeId?: string | undefined }) {
  let query = db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId);
  if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
  return query.orderBy('id', 'desc').limit(page.limit).execute();
}

/** A delivery of the job's message takes the job over: running, one attempt more, `runner` its token. */
export function startJobRun(db: Kysely<CatalogDb>, tenantId: string, id: string, runner: string) {
  return db
    .updateTable('jobs')
    .set({
      state: 'running',
      runner,
      attempts: sql<number>`attempts + 1`,
      started_at: sql<Date>`coalesce(started_at, clock_timestamp())`,
      reported_at: sql<Date>`coalesce(reported_at, clock_timestamp())`,
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function setJobTotal(db: Kysely<CatalogDb>, tenantId: string, id: string, total: number) {
  return db
    .updateTable('jobs')
    .set({ total, updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/** What one chunk adds to its job: rows done, counts, the errors still kept, and whether it reported progress. */
export interface ChunkTally extends JobCounts {
  processed: number;
  keptErrors: JobRowError[];
  errorCount: number;
  reported: boolean;
}

/** The job's checkpoint after a chunk, in the chunk's transaction (a query: run with the events it records). */
export function advanceJobQuery(db: Kysely<CatalogDb>, tenantId: string, id: string, tally: ChunkTally) {
  return db
    .updateTable('jobs')
    .set({
      processed: tally.processed,
      created: sql<number>`created + ${tally.created}`,
      updated: sql<number>`updated + ${tally.updated}`,
      unchanged: sql<number>`unchanged + ${tally.unchanged}`,
      skipped: sql<number>`skipped + ${tally.skipped}`,
      errors: sql<string>`errors || ${JSON.stringify(tally.keptErrors)}::jsonb`,
      error_count: sql<number>`error_count + ${tally.errorCount}`,
      ...(tally.reported ? { reported_processed: tally.processed, reported_at: sql<Date>`clock_timestamp()` } : {}),
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll();
}

/** How a job ends: succeeded, or failed with a code and message. */
export type JobEnd = { state: 'succeeded' } | { state: 'failed'; code: string; message: string };

/** The job's end (a query: run with its job.succeeded or job.failed). */
export function endJobQuery(db: Kysely<CatalogDb>, tenantId: string, id: string, end: JobEnd) {
  return db
    .updateTable('jobs')
    .set({
      state: end.state,
      runner: null,
      ...(end.state === 'failed' ? { failure_code: end.code, failure_message: end.message } : {}),
      finished_at: sql<Date>`clock_timestamp()`,
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll();
}

/** The tenant's queued and running jobs, counted up to `limit` (the cap of decision 0150 needs no more). */
export async function countUnfinishedJobs(db: Kysely<CatalogDb>, tenantId: string, limit: number): Promise<number> {
  const unfinished = db.selectFrom('jobs').select('id').where('tenant_id', '=', tenantId).where('state', 'in', ['queued', 'running']);
  return (await unfinished.limit(limit).execute()).length;
}
