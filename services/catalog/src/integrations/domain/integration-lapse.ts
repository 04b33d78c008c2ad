import { outboxFor, type Transaction } from '@catalog/platform';
import { writeHealth, type IntegrationRow } from '../persistence/integrations.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { heartbeatMissed } from './integration-view.js';

/** The source system of what the catalog records by itself (a missed heartbeat). */
export const CATALOG_SOURCE_SYSTEM = 'catalog';

/**
 * Records that the integration's heartbeat lapsed (decision 0133): down since it lapsed, with
 * integration.health_changed (reason heartbeat_missed, source system `catalog`) in its tenant,
 * in the caller's transaction, which holds the integration's row.
 */
export async function recordLapse(trx: Transaction<CatalogDb>, row: IntegrationRow): Promise<void> {
  await writeHealth(trx, row.tenant_id, row.id, {
    status: 'down',
    since: row.heartbeat_due_at ?? undefined,
    message: heartbeatMissed(row.heartbeat_seconds),
    reported: false,
  });
  await outboxFor(trx, 'catalog', { tenantId: row.tenant_id, sourceSystem: CATALOG_SOURCE_SYSTEM }).record({
    type: 'integration.health_changed',
    resourceId: row.id,
    dmrn: null,
    data: { status: 'down', previous: row.health_status, reason: 'heartbeat_missed' },
  });
}
