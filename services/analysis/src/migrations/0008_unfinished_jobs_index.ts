import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A tenant's queued and running jobs, counted when it asks for another (decision 0150: each
 * tenant may have so many at once): found without reading its finished ones. Frozen in time.
 */
export const unfinishedJobsIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw(`CREATE INDEX jobs_tenant_unfinished ON analysis.jobs (tenant_id) WHERE status IN ('QUEUED', 'RUNNING');`).execute(db);
  },
};
