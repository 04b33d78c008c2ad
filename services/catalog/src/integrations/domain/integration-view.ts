import type { Assignment, Integration, IntegrationHealth } from '@catalog/contracts';
import type { AssignmentRow } from '../persistence/assignments.js';
import type { AssignmentCounts, IntegrationRecord } from '../persistence/integrations.js';

/** The message of a status the catalog set because no report came within the heartbeat. */
export const heartbeatMissed = (seconds: number | null): string => `no health report within ${seconds ?? 0} s (heartbeatSeconds)`;

/**
 * The health an integration shows (decision 0133): down by itself once its heartbeat lapsed, from
 * the moment it lapsed, even before the sweep recorded it; else the status last recorded.
 */
export function healthOf(row: IntegrationRecord): IntegrationHealth {
  if (row.lapsed && row.health_status !== 'down' && row.heartbeat_due_at !== null) {
    return { status: 'down', since: row.heartbeat_due_at.toISOString(), message: heartbeatMissed(row.heartbeat_seconds) };
  }
  return {
    status: row.health_status,
    since: row.health_since.toISOString(),
    ...(row.health_message === null ? {} : { message: row.health_message }),
  };
}

/** The public JSON of an integration. */
export function integrationView(row: IntegrationRecord, assignments: AssignmentCounts): Integration {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    system: row.system,
    heartbeatSeconds: row.heartbeat_seconds,
    sourceSystem: row.source_system,
    health: healthOf(row),
    assignments,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The public JSON of an assignment. */
export function assignmentView(row: AssignmentRow): Assignment {
  return {
    id: row.id,
    integrationId: row.integration_id,
    entityId: row.entity_id,
    syncState: row.sync_state,
    versionIds: row.version_ids,
    externalId: row.external_id,
    error: row.error,
    stateChangedAt: row.state_changed_at.toISOString(),
    syncedAt: row.synced_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}
