import { createHash } from 'node:crypto';
import {
  ANALYSIS_COSTS,
  type AnalysisJob,
  type AnalysisJobPage,
  type AnalysisOptions,
  type AnalysisType,
  type CreateAnalysisBody,
  type ListAnalysesQuery,
} from '@catalog/contracts';
import {
  canonicalJson,
  checkQueuedJobCap,
  conflict,
  afterId,
  idPage,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  type CallContext,
  type Kysely,
} from '@catalog/platform';
import type { SourceResolver } from '../integration/sources.js';
import { recordJobEvent } from '../persistence/job-events.js';
import { countUnfinishedJobs, findJob, findJobByIdempotencyKey, insertJob, listJobRows, type JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { reserveCredits } from './credits.js';
import { jobView, listedJob } from './job-view.js';
import type { ResultLinks } from './result-links.js';

export interface JobDeps {
  db: Kysely<AnalysisDb>;
  sources: SourceResolver;
  /** Signed links to jobs whose result is too large for a reply (decision 0113). */
  links: ResultLinks;
  /** Analyses a tenant may have queued or running at once (ANALYSIS_MAX_QUEUED_PER_TENANT, decision 0150). */
  maxQueuedPerTenant: number;
}

/** The Retry-After of a request over the cap of queued analyses: about one analysis's run. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 10;

/** The options of the job's type only (`{waveform: {...}}`): those of other types do not apply and are dropped. */
export function optionsOf(type: AnalysisType, options: AnalysisOptions | undefined): AnalysisOptions {
  const own = (options as Record<string, unknown> | undefined)?.[type];
  return own === undefined ? {} : ({ [type]: own } as AnalysisOptions);
}

function requestHash(body: CreateAnalysisBody, options: AnalysisOptions): string {
  return createHash('sha256')
    .update(canonicalJson({ type: body.type, source: body.source, options }))
    .digest('hex');
}

/** The job an earlier request with the same Idempotency-Key made; 409 when that request was another one. */
function replay(existing: JobRow, hash: string): AnalysisJob {
  if (existing.request_hash !== hash) {
    throw conflict('idempotency_key_reused', 'this Idempotency-Key was used for another request; use a new key for a new analysis', {
      jobId: existing.id,
    });
  }
  return jobView(existing);
}

/**
 * `POST /api/v1/catalog/analyses` (decisions 0085, 0086): resolves the source (no transaction open),
 * then in one transaction refuses it when the tenant has its most analyses queued or running
 * (429, decision 0150), inserts the job, reserves its cost (402 and nothing queued when the
 * balance does not cover it) and records analysis.queued, which is the job's message on the work
 * queue (decision 0126). With an Idempotency-Key, a request that repeats an earlier one answers its
 * job, charged once (also when both race: the second insert waits for the first and yields).
 */
export async function createAnalysis(
  deps: JobDeps,
  call: CallContext,
  body: CreateAnalysisBody,
  idempotencyKey: string | undefined,
): Promise<AnalysisJob> {
  const options = optionsOf(body.type, body.options);
  const hash = requestHash(body, options);
  if (idempotencyKey !== undefined) {
    const existing = await inTenantScope(deps.db, call.tenantId, (db) => findJobByIdempotencyKey(db, call.tenantId, idempotencyKey));
    if (existing) return replay(existing, hash);
  }
  const resolved = await deps.sources.resolve(call, body.source);
  const cost = ANALYSIS_COSTS[body.type];
  const created = await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const cap = {
      queue: 'analyses',
      tenantId: call.tenantId,
      max: deps.maxQueuedPerTenant,
      retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
    };
    await checkQueuedJobCap(trx, cap, (limit) => countUnfinishedJobs(trx, call.tenantId, limit));
    const job = await insertJob(trx, {
      id: newId(),
      tenantId: call.tenantId,
      type: body.type,
      source: body.source,
      ...resolved,
      options,
      cost,
      sourceSystem: call.sourceSystem,
      idempotencyKey,
      requestHash: hash,
    });
    if (!job) return null;
    await reserveCredits(trx, call.tenantId, job.id, cost);
    await recordJobEvent(trx, 'analysis.queued', job);
    return job;
  });
  if (!created) {
    const existing = await inTenantScope(deps.db, call.tenantId, (db) => findJobByIdempotencyKey(db, call.tenantId, idempotencyKey!));
    if (!existing) throw new Error('an analysis job was neither inserted nor found by its Idempotency-Key');
    return replay(existing, hash);
  }
  return jobView(created);
}

/** Room in a reply for the job's fields besides its result. */
const JOB_FIELDS_BYTES = 4_096;

/**
 * `GET /api/v1/catalog/analyses/{jobId}`: the job with its whole result. A result that would not
 * fit the reply (kept in parts, or over the bus's budget) is not read here: the answer is 303 with
 * a signed, short-lived link to this service's listener, which the gateway streams (decision 0113).
 */
export async function getAnalysis(
  deps: Pick<JobDeps, 'db' | 'links'>,
  call: CallContext,
  jobId: string,
  maxBytes: number,
): Promise<{ status: 303; body: { location: string } } | { body: AnalysisJob }> {
  const row = await inTenantScope(deps.db, call.tenantId, (db) => findJob(db, call.tenantId, jobId));
  if (!row) throw notFound('analysis');
  const large = row.result_bytes !== null && (row.result === null || row.result_bytes + JOB_FIELDS_BYTES > maxBytes);
  if (large) return { status: 303, body: { location: deps.links.location(call.tenantId, row.id) } };
  return { body: jobView(row) };
}

/** Jobs newest first, by entity and/or asset, type and status; pages end early to fit one reply (decision 0052). */
export async function listAnalyses(
  deps: Pick<JobDeps, 'db'>,
  call: CallContext,
  query: ListAnalysesQuery,
  maxBytes: number,
): Promise<AnalysisJobPage> {
  const limit = query.limit ?? 50;
  const rows = await inTenantScope(deps.db, call.tenantId, (db) =>
    listJobRows(db, call.tenantId, { ...query, beforeId: afterId(query.after), limit: limit + 1 }),
  );
  const { items, nextCursor, hasMore } = idPage(rows.map(listedJob), limit, maxBytes - 512, (job) => job.jobId);
  return { analyses: items, nextCursor, hasMore };
}
