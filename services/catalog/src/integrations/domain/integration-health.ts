/**
 * Integration health (decision 0133). A connector reports its status; each report is also its
 * heartbeat. An integration with `heartbeatSeconds` that has not reported within them is down by
 * itself: reads show it at once (`healthOf`), and its integration.health_changed (reason
 * heartbeat_missed) is recorded by whichever comes first, the periodic sweep or the next report,
 * in the transaction that records the status, so a lapse is recorded once and never lost.
 */
import type { HealthStatus, Integration, ReportHealthBody, ReportedHealth } from '@catalog/contracts';
import { inTenantTransaction, outboxFor, runTransaction, withoutTenant, type CallContext, type Kysely } from '@catalog/platform';
import { findIntegration, lockLapsedIntegrations, writeHealth } from '../persistence/integrations.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { recordLapse } from './integration-lapse.js';
import { integrationNotFound, integrationViews } from './integrations.js';

/** Integrations the sweep takes per transaction. */
export const HEARTBEAT_SWEEP_BATCH = 100;

/**
 * A connector's health report: the heartbeat starts again and the message is kept; a status that
 * differs from the one shown records integration.health_changed (reason reported). A lapse not
 * recorded yet is recorded first, so the events read down, then the reported status.
 */
export async function reportHealth(
  deps: { db: Kysely<CatalogDb> },
  call: CallContext,
  id: string,
  report: ReportHealthBody,
): Promise<Integration> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const current = await findIntegration(trx, call.tenantId, id, { lock: 'update' });
    if (!current) throw integrationNotFound();
    const events = outboxFor(trx, 'catalog', call);
    let previous: HealthStatus = current.health_status;
    if (current.lapsed && previous !== 'down') {
      await recordLapse(trx, current);
      previous = 'down';
    }
    const status: ReportedHealth = report.status;
    const changed = status !== previous;
    const row = await writeHealth(trx, call.tenantId, id, {
      ...(changed ? { status } : {}),
      message: report.message ?? null,
      reported: true,
    });
    if (changed) {
      await events.record({
        type: 'integration.health_changed',
        resourceId: id,
        dmrn: null,
        data: { status, previous, reason: 'reported' },
      });
    }
    return (await integrationViews(trx, call.tenantId, [row]))[0]!;
  });
}

/**
 * One pass of the heartbeat sweep: records the lapse of every integration, of any tenant, whose
 * heartbeat lapsed and whose status is not down yet, `HEARTBEAT_SWEEP_BATCH` per transaction
 * (outside any tenant; each event in its integration's tenant). Rows a report or another replica
 * holds are passed by and found again if still lapsed. Returns how many it recorded.
 */
export async function sweepLapsedHeartbeats(deps: { db: Kysely<CatalogDb> }): Promise<number> {
  let recorded = 0;
  for (;;) {
    const count = await withoutTenant(() =>
      runTransaction(deps.db, async (trx) => {
        const lapsed = await lockLapsedIntegrations(trx, HEARTBEAT_SWEEP_BATCH);
        for (const row of lapsed) await recordLapse(trx, row);
        return lapsed.length;
      }),
    );
    recorded += count;
    if (count < HEARTBEAT_SWEEP_BATCH) return recorded;
  }
}
