import type { Asset, CreateJobBody, EventData, EventTypeName, Job, JobPage, ListJobsQuery } from '@catalog/contracts';
import {
  afterId,
  checkQueuedJobCap,
  conflict,
  idPage,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  outboxFor,
  unsupportedMediaType,
  type CallContext,
  type Kysely,
  type OutboxEvent,
} from '@catalog/platform';
import type { AssetClient } from '../../integration/asset-client.js';
import { countUnfinishedJobs, findJob, insertJobQuery, listJobRows, type JobRow } from '../persistence/import-jobs.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { importFormatOf } from './import-records.js';

import { jobView } from './job-view.js';

/**
 * Import jobs as the API shows them (decision 0134): created queued with their job.created event
 * (the job's message on the work queue, as analysis.queued is an analysis job's, decision 0126),
 * read and listed. Running them is import-run.ts.
 */
export interface JobDeps {
  db: Kysely<CatalogDb>;
  assets: AssetClient;
  /** Import jobs a tenant may have queued or running at once (CATALOG_IMPORT_MAX_QUEUED_PER_TENANT, decision 0150). */
  maxQueuedPerTenant: number;
}

/** The Retry-After of a request over the cap of queued imports: about one import's run. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

const DEFAULT_PAGE_SIZE = 20;

type JobEventType = Extract<EventTypeName, `job.${string}`>;
type JobEventExtra<T extends JobEventType> = Omit<EventData<T>, 'jobId' | 'type' | 'assetId'>;

/** A job event of `row`: resourceId the job, dmrn null, its facts and `extra`. */
export function jobEvent<T extends JobEventType>(
  type: T,
  row: Pick<JobRow, 'id' | 'type' | 'asset_id'>,
  extra: JobEventExtra<T>,
): OutboxEvent<T> {
  const data = { jobId: row.id, type: row.type, assetId: row.asset_id, ...extra };
  // The job's facts and `extra` make T's data (the registry checks it again when recording).
  return { type, resourceId: row.id, dmrn: null, data } as OutboxEvent<T>;
}

/** 415 unless the asset is an import file, 409 unless it is ONLINE. */
function checkImportFile(asset: Asset): void {
  if (asset.kind !== 'DATA' || importFormatOf(asset.contentType) === null) {
    throw unsupportedMediaType(`an import reads application/x-ndjson or text/csv files, not ${asset.contentType}`, {
      assetId: asset.id,
      contentType: asset.contentType,
      allowed: ['application/x-ndjson', 'text/csv'],
    });
  }
  if (asset.status !== 'ONLINE') {
    throw conflict('asset_not_online', `the file is ${asset.status}: confirm its upload first`, {
      assetId: asset.id,
      status: asset.status,
    });
  }
}

/**
 * A new import job of the file `source.assetId` (read from the asset service first, no transaction
 * open): refused with 429 while the tenant has its most imports queued or running (decision 0150),
 * else inserted queued with its job.created in one statement, the event's batchId the job id.
 */
export async function createJob(deps: JobDeps, call: CallContext, body: CreateJobBody): Promise<Job> {
  checkImportFile(await deps.assets.get(call, body.source.assetId));
  const id = newId();
  const row = { id, tenantId: call.tenantId, assetId: body.source.assetId, sourceSystem: call.sourceSystem };
  const created = jobEvent('job.created', { id, type: 'import', asset_id: row.assetId }, {});
  const context = { tenantId: call.tenantId, sourceSystem: call.sourceSystem };
  const cap = {
    queue: 'imports',
    tenantId: call.tenantId,
    max: deps.maxQueuedPerTenant,
    retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
  };
  const [inserted] = await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    await checkQueuedJobCap(trx, cap, (limit) => countUnfinishedJobs(trx, call.tenantId, limit));
    const rows = await insertJobQuery(trx, row).execute();
    await outboxFor(trx, 'catalog', context, id).record(created);
    return rows;
  });
  return jobView(inserted!);
}

export async function getJob(deps: Pick<JobDeps, 'db'>, call: CallContext, id: string): Promise<Job> {
  const row = await inTenantScope(deps.db, call.tenantId, (db) => findJob(db, call.tenantId, id));
  if (!row) throw notFound('job');
  return jobView(row);
}

/** A page of the tenant's jobs, newest first: at most `limit`, and no more than fit `maxBytes` (the bus reply's budget). */
export async function listJobs(deps: Pick<JobDeps, 'db'>, call: CallContext, query: ListJobsQuery, maxBytes: number): Promise<JobPage> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await inTenantScope(deps.db, call.tenantId, (db) =>
    listJobRows(db, call.tenantId, { limit: limit + 1, beforeId: afterId(query.after) }),
  );
  const { items, nextCursor, hasMore } = idPage(rows.map(jobView), limit, maxBytes, (job) => job.jobId);
  return { jobs: items, nextCursor, hasMore };
}
