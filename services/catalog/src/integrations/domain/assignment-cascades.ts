/**
 * What other writes of an entity do to its assignments (decision 0132), in their transaction and
 * under the entity's lock: a primary change makes them pending again, the entity's deletion
 * removes them. A tenant has few integrations, so an entity has few assignments.
 */
import type { Outbox, Transaction } from '@catalog/platform';
import { deleteAssignmentsQuery, lockAssignmentsOfEntity, primaryVersionIdsOf, updateAssignments } from '../persistence/assignments.js';
import type { EntityRow } from '../../persistence/entities.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * After a primary version of `entity` changed: each of its assignments not pending becomes pending,
 * with assignment.sync_state_changed (versionIds: the primary versions now; reason
 * primary_changed) recorded with the version change. Pending ones stay as they are.
 */
export async function markAssignmentsPending(trx: Transaction<CatalogDb>, events: Outbox, entity: EntityRow): Promise<void> {
  const changing = (await lockAssignmentsOfEntity(trx, entity.tenant_id, entity.id)).filter((row) => row.sync_state !== 'pending');
  if (changing.length === 0) return;
  const versionIds = await primaryVersionIdsOf(trx, entity.tenant_id, entity.id);
  const ids = changing.map((row) => row.id);
  await updateAssignments(trx, entity.tenant_id, ids, { syncState: 'pending', changed: true, error: null });
  for (const row of changing) {
    await events.record({
      type: 'assignment.sync_state_changed',
      resourceId: row.id,
      dmrn: entity.dmrn,
      data: {
        integrationId: row.integration_id,
        entityId: entity.id,
        state: 'pending',
        previous: row.sync_state,
        versionIds,
        reason: 'primary_changed',
      },
    });
  }
}

/** Before `entity` is deleted: its assignments go, each with assignment.deleted (reason entity_deleted). */
export async function removeAssignmentsOfEntity(trx: Transaction<CatalogDb>, events: Outbox, entity: EntityRow): Promise<void> {
  const rows = await lockAssignmentsOfEntity(trx, entity.tenant_id, entity.id);
  if (rows.length === 0) return;
  for (const row of rows) {
    await events.record({
      type: 'assignment.deleted',
      resourceId: row.id,
      dmrn: entity.dmrn,
      data: { integrationId: row.integration_id, entityId: entity.id, reason: 'entity_deleted' },
    });
  }
  await deleteAssignmentsQuery(
    trx,
    entity.tenant_id,
    rows.map((row) => row.id),
  ).execute();
}
