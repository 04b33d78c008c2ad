import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { Next } from 'koa';
import { AppError, inTenantScope, notFound, sendStreamBody, type HttpContext, type HttpState, type Kysely } from '@catalog/platform';
import { jobFacts } from '../domain/job-view.js';
import { RESULT_PATH_PREFIX, type ResultLinks } from '../domain/result-links.js';
import { findJob, type JobRow } from '../persistence/jobs.js';
import { readResultPart } from '../persistence/results.js';
import type { AnalysisDb } from '../persistence/tables.js';

export interface ResultListenerDeps {
  db: Kysely<AnalysisDb>;
  links: ResultLinks;
}

/** The parts of a large result, read one query at a time as the client takes them. */
async function* resultParts(db: Kysely<AnalysisDb>, row: JobRow): AsyncGenerator<Buffer> {
  for (let next = 0; ;) {
    const part = await inTenantScope(db, row.tenant_id, (scoped) => readResultPart(scoped, row.tenant_id, row.id, next));
    if (!part) return;
    yield part.bytes;
    next = part.part + 1;
  }
}

/** The JSON of a job's result and its length: inline (small, held whole), in parts (streamed), or null. */
function resultBody(db: Kysely<AnalysisDb>, row: JobRow): { bytes: number; body: AsyncIterable<Buffer> | Iterable<Buffer> } {
  if (row.status !== 'SUCCEEDED' || row.result_bytes === null) return { bytes: 4, body: [Buffer.from('null')] };
  if (row.result !== null) {
    const inline = Buffer.from(JSON.stringify(row.result));
    return { bytes: inline.length, body: [inline] };
  }
  return { bytes: row.result_bytes, body: resultParts(db, row) };
}

/**
 * `GET /analysis-results/<jobId>?t=<tenant>&exp=…&sig=…`: the job with its whole result, the JSON
 * of `GET /api/v1/catalog/analyses/{jobId}`, for the gateway to stream (decision 0113). Authorised
 * by the link's signature alone (getAnalysis signs it for the caller's tenant, for a minute). The
 * job's fields come first, then the result as stored; a large result is read part by part (256
 * KiB each, one short query per part, no transaction held) as the client takes it, so a reader
 * holds about one part whatever the result's size. The URLs are never logged.
 */
export function mountResultRoutes(app: Koa<HttpState>, deps: ResultListenerDeps): void {
  app.use(async (ctx: HttpContext, next: Next) => {
    if (!ctx.path.startsWith(RESULT_PATH_PREFIX)) return next();
    if (ctx.method !== 'GET') {
      ctx.set('Allow', 'GET');
      throw new AppError(405, 'method_not_allowed', 'read a result with GET');
    }
    const { tenantId, jobId } = deps.links.verify(ctx.path, new URLSearchParams(ctx.querystring));
    const row = await inTenantScope(deps.db, tenantId, (db) => findJob(db, tenantId, jobId));
    if (!row) throw notFound('analysis');
    const fields = JSON.stringify(jobFacts(row));
    const head = Buffer.from(`${fields.slice(0, -1)},"result":`);
    const result = resultBody(deps.db, row);
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'private, no-store');
    ctx.length = head.length + result.bytes + 1;
    await sendStreamBody(ctx, Readable.from(withEnvelope(head, result.body), { objectMode: false }));
  });
}

async function* withEnvelope(head: Buffer, body: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
  yield head;
  yield* body;
  yield Buffer.from('}');
}
