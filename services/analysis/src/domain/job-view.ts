import type { AnalysisJob, AnalysisJobListItem } from '@catalog/contracts';
import { creditsHeld } from '../persistence/job-events.js';
import type { JobRow, ListedJobRow } from '../persistence/jobs.js';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** A job as the API shows it, but its result (decision 0085). */
export function jobFacts(row: ListedJobRow): Omit<AnalysisJob, 'result'> {
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
    error: row.status === 'FAILED' ? { code: row.error_code ?? 'unknown', message: row.error_message ?? '' } : null,
  };
}

/** A job as the API shows it, with its result when that is kept inline (a large one is streamed, decision 0113). */
export function jobView(row: JobRow): AnalysisJob {
  return { ...jobFacts(row), result: row.status === 'SUCCEEDED' ? (row.result as AnalysisJob['result']) : null };
}

/** A job as a listing shows it: the summary of its result instead of the result (decision 0113). */
export function listedJob(row: ListedJobRow): AnalysisJobListItem {
  return { ...jobFacts(row), summary: row.status === 'SUCCEEDED' ? (row.summary as AnalysisJobListItem['summary']) : null };
}
