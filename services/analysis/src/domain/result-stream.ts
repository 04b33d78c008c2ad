import { inTenantScope, notFound, type Kysely } from '@catalog/platform';
import { findJob, type JobRow } from '../persistence/jobs.js';
import { readResultPart } from '../persistence/results.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { jobFacts } from './job-view.js';

/** A job with its whole result as the JSON of `GET /api/v1/catalog/analyses/{jobId}`, in pieces, and its length. */
export interface JobJson {
  bytes: number;
  body: AsyncIterable<Buffer>;
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

async function* withEnvelope(head: Buffer, body: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
  yield head;
  yield* body;
  yield Buffer.from('}');
}

/**
 * The job's fields first, then its result as stored (decision 0113): a large result is read part
 * by part (256 KiB each, one short query per part, no transaction held) as the reader takes it,
 * so a reader holds about one part whatever the result's size. 404 for a job the tenant has not.
 */
export async function jobJson(db: Kysely<AnalysisDb>, tenantId: string, jobId: string): Promise<JobJson> {
  const row = await inTenantScope(db, tenantId, (scoped) => findJob(scoped, tenantId, jobId));
  if (!row) throw notFound('analysis');
  const fields = JSON.stringify(jobFacts(row));
  const head = Buffer.from(`${fields.slice(0, -1)},"result":`);
  const result = resultBody(db, row);
  return { bytes: head.length + result.bytes + 1, body: withEnvelope(head, result.body) };
}
