import type { AnalysisJob } from '@catalog/contracts';
import type { JobRow } from '../persistence/jobs.js';

/** Credits a job holds: its cost while reserved (QUEUED, RUNNING) and once settled (SUCCEEDED); none once refunded. */
export function creditsHeld(job: Pick<JobRow, 'status' | 'cost'>): number {
  return job.status === 'FAILED' ? 0 : job.cost;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** A job as the API shows it (decision 0085). */
export function jobView(row: JobRow): AnalysisJob {
  return {
    jobId: row.id,
    type: row.type,
    status: row.status,
    source: row.source,
    resolved: { assetId: row.asset_id, entityId: row.entity_id, versionId: row.version_id },
    options: row.options,
    creditsCharged: creditsHeld(row),
    createdAt: row.created_at.toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    result: row.status === 'SUCCEEDED' ? (row.result as AnalysisJob['result']) : null,
    error: row.status === 'FAILED' ? { code: row.error_code ?? 'unknown', message: row.error_message ?? '' } : null,
  };
}
