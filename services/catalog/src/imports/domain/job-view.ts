import type { Job } from '@catalog/contracts';
import type { JobRow } from '../persistence/import-jobs.js';

/** The public JSON of a job (decision 0134). */
export function jobView(row: JobRow): Job {
  return {
    jobId: row.id,
    type: row.type,
    state: row.state,
    source: { assetId: row.asset_id },
    progress: { processed: row.processed, total: row.total ?? 0 },
    counts: { created: row.created, updated: row.updated, unchanged: row.unchanged, skipped: row.skipped },
    errors: row.errors,
    errorCount: row.error_count,
    failure: row.failure_code === null ? null : { code: row.failure_code, message: row.failure_message ?? '' },
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}
