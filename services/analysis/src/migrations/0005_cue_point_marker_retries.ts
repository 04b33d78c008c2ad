import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Cue points written as markers durably (decision 0088): a `cue_points` job of a version
 * records the catalog's definite answer (`markers_outcome`, when in `markers_applied_at`); until it
 * has one, a periodic task asks again (`markers_attempts`, the next try not before
 * `markers_next_attempt_at`). Jobs that wrote their markers before this migration count as
 * `applied`; other succeeded ones are asked once more (the catalog's answer is idempotent).
 * The partial index serves the task's query. Frozen in time.
 */
export const cuePointMarkerRetries: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `ALTER TABLE analysis.jobs
           ADD COLUMN markers_outcome text CHECK (markers_outcome IN
             ('applied', 'unchanged', 'set_by_hand', 'not_enabled', 'refused', 'superseded', 'gave_up')),
           ADD COLUMN markers_error text,
           ADD COLUMN markers_attempts integer NOT NULL DEFAULT 0,
           ADD COLUMN markers_next_attempt_at timestamptz;
         UPDATE analysis.jobs SET markers_outcome = 'applied' WHERE markers_applied_at IS NOT NULL;
         CREATE INDEX jobs_markers_pending ON analysis.jobs (markers_next_attempt_at NULLS FIRST)
           WHERE type = 'cue_points' AND status = 'SUCCEEDED' AND version_id IS NOT NULL AND markers_outcome IS NULL;`,
      )
      .execute(db);
  },
};
