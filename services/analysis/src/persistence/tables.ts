import type { AnalysisJobStatus, AnalysisOptions, AnalysisType, CreditEntryKind } from '@catalog/contracts';
import type { ColumnType } from 'kysely';

/** Timestamps the database sets on insert; updates set them explicitly. */
type Timestamp = ColumnType<Date, never, Date>;
/** int8 columns arrive as strings (pg keeps 64-bit integers exact). */
type Int8 = ColumnType<string, number | string | undefined, number | string>;
/** jsonb written as JSON text, read as the value. */
type Json<T> = ColumnType<T, string, string>;

export interface CreditAccountsTable {
  tenant_id: string;
  balance: Int8;
  reserved: Int8;
  updated_at: Timestamp;
}

export interface CreditLedgerTable {
  id: string;
  tenant_id: string;
  kind: CreditEntryKind;
  amount: Int8;
  balance_after: Int8;
  job_id: string | null;
  reason: string | null;
  created_at: Timestamp;
}

/** What became of a cue_points job's markers: the catalog's answer, a 4xx (`refused`), a newer job's (`superseded`), or the retries' end. */
export type MarkersOutcome = 'applied' | 'unchanged' | 'set_by_hand' | 'not_enabled' | 'refused' | 'superseded' | 'gave_up';

/** The source of a job as it was requested: one of the three ids. */
export interface RequestedSource {
  assetId?: string;
  entityId?: string;
  versionId?: string;
}

export interface JobsTable {
  id: string;
  tenant_id: string;
  type: AnalysisType;
  status: AnalysisJobStatus;
  source: Json<RequestedSource>;
  asset_id: string;
  entity_id: string | null;
  version_id: string | null;
  dmrn: string | null;
  options: Json<AnalysisOptions>;
  cost: number;
  source_system: string;
  idempotency_key: string | null;
  request_hash: string | null;
  origin_event_id: string | null;
  attempts: ColumnType<number, never, number>;
  last_error: ColumnType<string | null, never, string | null>;
  /** The result of a SUCCEEDED job whose JSON takes at most INLINE_RESULT_MAX_BYTES; larger ones are in job_result_parts (decision 0113). */
  result: ColumnType<unknown, never, string | null>;
  /** What listings show of the result (decision 0113); null until SUCCEEDED. */
  summary: ColumnType<unknown, never, string | null>;
  /** Bytes of the result's JSON; null until SUCCEEDED. */
  result_bytes: ColumnType<number | null, never, number | null>;
  error_code: ColumnType<string | null, string | null | undefined, string | null>;
  error_message: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the catalog gave its definite answer to the cue points as markers (any outcome). */
  markers_applied_at: ColumnType<Date | null, never, Date | null>;
  /** That answer (a cue_points job of a version; null: not yet, the retry task asks again). */
  markers_outcome: ColumnType<MarkersOutcome | null, never, MarkersOutcome | null>;
  markers_error: ColumnType<string | null, never, string | null>;
  markers_attempts: ColumnType<number, never, number>;
  markers_next_attempt_at: ColumnType<Date | null, never, Date | null>;
  /** The job whose batch took this one along (decision 0126): that job's message carries it; null for a job run on its own message. */
  batch_lead_id: ColumnType<string | null, never, string | null>;
  created_at: Timestamp;
  started_at: ColumnType<Date | null, never, Date | null>;
  finished_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  updated_at: Timestamp;
}

export interface FingerprintsTable {
  tenant_id: string;
  asset_id: string;
  entity_id: string | null;
  job_id: string;
  /** The raw 32-bit sub-fingerprints, little-endian. */
  raw: Buffer;
  /** Its distinct values as signed 32-bit integers (the GIN-indexed prefilter). */
  keys: number[];
  updated_at: Timestamp;
}

/** The JSON of a large result in parts of RESULT_PART_BYTES, in order (decision 0113). */
export interface JobResultPartsTable {
  tenant_id: string;
  job_id: string;
  part: number;
  bytes: Buffer;
}

/** The tables of the `analysis` schema as the service's queries see them. */
export interface AnalysisDb {
  credit_accounts: CreditAccountsTable;
  credit_ledger: CreditLedgerTable;
  jobs: JobsTable;
  fingerprints: FingerprintsTable;
  job_result_parts: JobResultPartsTable;
}
