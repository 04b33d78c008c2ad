import type { Kysely } from 'kysely';
import { leaseEnd, startedBy, type JobRow } from './jobs.js';
import type { AnalysisDb } from './tables.js';

/**
 * Batches and leases of running jobs (decision 0087). A worker that starts a job also takes the
 * other QUEUED jobs of the same file (one per type it does not run yet), so that one decode serves
 * them all; their own messages, delivered meanwhile to other workers, find them leased (busy).
 */
export function claimSiblings(
  db: Kysely<AnalysisDb>,
  job: Pick<JobRow, 'tenant_id' | 'asset_id' | 'type'>,
  leaseMs: number,
): Promise<JobRow[]> {
  const candidates = db
    .selectFrom('jobs')
    .select('id')
    .distinctOn('type')
    .where('tenant_id', '=', job.tenant_id)
    .where('asset_id', '=', job.asset_id)
    .where('status', '=', 'QUEUED')
    .where('type', '<>', job.type)
    .orderBy('type')
    .orderBy('id');
  return db
    .updateTable('jobs')
    .set(startedBy(leaseMs))
    .where('tenant_id', '=', job.tenant_id)
    .where('status', '=', 'QUEUED')
    .where('id', 'in', candidates)
    .returningAll()
    .execute();
}

/** Renews the leases of jobs a worker still runs (`leaseMs` from now), or ends them now (`leaseMs` 0: another worker may take them). */
export async function setLeases(db: Kysely<AnalysisDb>, tenantId: string, ids: readonly string[], leaseMs: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('jobs')
    .set({ lease_until: leaseEnd(leaseMs) })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .where('status', '=', 'RUNNING')
    .execute();
}
