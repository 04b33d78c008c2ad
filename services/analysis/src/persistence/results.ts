import type { Kysely } from 'kysely';
import type { AnalysisDb } from './tables.js';

/**
 * Where a result is kept (decision 0113): its JSON in the job's `result` when it takes at most
 * INLINE_RESULT_MAX_BYTES, else in parts of RESULT_PART_BYTES (`job_result_parts`), which the
 * analysis service's listener streams one at a time, so no reader holds a large result whole.
 */
export const INLINE_RESULT_MAX_BYTES = 262_144;
export const RESULT_PART_BYTES = 262_144;

/** A result's JSON as it is stored: inline (small), or cut into parts (large); `bytes` its size. */
export interface StoredResult {
  inline: string | null;
  parts: Buffer[];
  bytes: number;
}

export function storedResult(json: string): StoredResult {
  const bytes = Buffer.byteLength(json);
  if (bytes <= INLINE_RESULT_MAX_BYTES) return { inline: json, parts: [], bytes };
  const whole = Buffer.from(json);
  const parts: Buffer[] = [];
  for (let start = 0; start < whole.length; start += RESULT_PART_BYTES) parts.push(whole.subarray(start, start + RESULT_PART_BYTES));
  return { inline: null, parts, bytes };
}

/** Writes the parts of a job's large result (in the transaction that records its success), one statement each. */
export async function insertResultParts(db: Kysely<AnalysisDb>, tenantId: string, jobId: string, parts: readonly Buffer[]): Promise<void> {
  for (const [part, bytes] of parts.entries()) {
    await db.insertInto('job_result_parts').values({ tenant_id: tenantId, job_id: jobId, part, bytes }).execute();
  }
}

/** The first part of a job's large result from `part` on (undefined after the last one). */
export function readResultPart(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  jobId: string,
  from: number,
): Promise<{ part: number; bytes: Buffer } | undefined> {
  return db
    .selectFrom('job_result_parts')
    .select(['part', 'bytes'])
    .where('tenant_id', '=', tenantId)
    .where('job_id', '=', jobId)
    .where('part', '>=', from)
    .orderBy('part')
    .limit(1)
    .executeTakeFirst();
}
