import type { HealthStatus, IntegrationKind, SyncState } from '@catalog/contracts';
import type { ColumnType } from 'kysely';

/** Timestamps the database sets on insert; updates set them explicitly. */
type Timestamp = ColumnType<Date, never, Date>;

/** An external system a tenant connects (decisions 0132, 0133). */
export interface IntegrationsTable {
  id: string;
  tenant_id: string;
  /** Free text a person reads. */
  name: string;
  /** The slug its bound keys' writes carry as `sourceSystem` (decision 0160). */
  source_system: string;
  kind: IntegrationKind;
  system: string | null;
  heartbeat_seconds: number | null;
  /** The health status last recorded (a report, or the heartbeat sweep). */
  health_status: ColumnType<HealthStatus, never, HealthStatus>;
  health_message: ColumnType<string | null, never, string | null>;
  health_since: ColumnType<Date, never, Date>;
  last_report_at: ColumnType<Date | null, never, Date | null>;
  /** When it lapses without another health report (null: it has no heartbeat). */
  heartbeat_due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An entity a playout integration carries, with its sync state (decision 0132). */
export interface AssignmentsTable {
  id: string;
  tenant_id: string;
  integration_id: string;
  entity_id: string;
  sync_state: ColumnType<SyncState, never, SyncState>;
  version_ids: ColumnType<string[], never, string[]>;
  external_id: ColumnType<string | null, never, string | null>;
  error: ColumnType<string | null, never, string | null>;
  state_changed_at: ColumnType<Date, never, Date>;
  synced_at: ColumnType<Date | null, never, Date | null>;
  created_at: Timestamp;
}
