import type { JobRowError, JobState, JobType } from '@catalog/contracts';
import type { ColumnType, Generated } from 'kysely';

/** Timestamps the database sets on insert; updates set them explicitly. */
type Timestamp = ColumnType<Date, never, Date>;
type Count = ColumnType<number, never, number>;

/** An import job and its checkpoint (decision 0134). */
export interface JobsTable {
  id: string;
  tenant_id: string;
  type: JobType;
  asset_id: string;
  state: JobState;
  source_system: string;
  /** Rows of the file; null until the job counted them. */
  total: ColumnType<number | null, never, number | null>;
  processed: Count;
  created: Count;
  updated: Count;
  unchanged: Count;
  skipped: Count;
  errors: ColumnType<JobRowError[], never, string>;
  error_count: Count;
  attempts: Count;
  /** The delivery of the job's message that runs it now. */
  runner: ColumnType<string | null, never, string | null>;
  /** `processed` and time of the last job.progressed (or of the start). */
  reported_processed: Count;
  reported_at: ColumnType<Date | null, never, Date | null>;
  failure_code: ColumnType<string | null, never, string | null>;
  failure_message: ColumnType<string | null, never, string | null>;
  created_at: Timestamp;
  started_at: ColumnType<Date | null, never, Date | null>;
  finished_at: ColumnType<Date | null, never, Date | null>;
  updated_at: Generated<Date>;
}

/** How an import finds an entity again: its old system's id, or its natural key; and the row that last touched it. */
export interface EntityImportKeysTable {
  entity_id: string;
  tenant_id: string;
  external_id: string | null;
  natural_key: string | null;
  job_id: string;
  row_number: number;
}
