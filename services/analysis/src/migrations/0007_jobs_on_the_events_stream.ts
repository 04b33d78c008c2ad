import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The job queue on the events stream (decision 0126): a job's `analysis.queued` event, committed with
 * its row, is its message, so nothing records that a message was published (`dispatched_at` and
 * the dispatcher's index of QUEUED jobs go); JetStream's ack wait keeps a running job with its
 * worker, so no lease either (`lease_until` goes). A job taken along in another job's batch names
 * that job (`batch_lead_id`): the lead's message carries it from then on. Frozen in time.
 */
export const jobsOnTheEventsStream: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `ALTER TABLE analysis.jobs
           DROP COLUMN dispatched_at,
           DROP COLUMN lease_until,
           ADD COLUMN batch_lead_id uuid;
         DROP INDEX analysis.jobs_undispatched;
         CREATE INDEX jobs_batch_lead ON analysis.jobs (tenant_id, batch_lead_id) WHERE batch_lead_id IS NOT NULL AND status = 'RUNNING';`,
      )
      .execute(db);
  },
};
