import type { Outbox, Transaction } from '@catalog/platform';
import { deleteMoleculeRow, lockMoleculesOfEntity, removeEntityElements, touchMolecule } from '../persistence/molecules.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * The entity deletion's cascade to molecules (decision 0137), in its transaction, which holds the
 * entity's lock: every element of the entity is removed from the tenant's molecules (locked in id
 * order), each molecule that keeps elements records `molecule.updated` (["elements"]), and a
 * molecule left without elements is deleted (`molecule.deleted`, reason entity_deleted).
 */
export async function removeEntityFromMolecules(
  trx: Transaction<CatalogDb>,
  events: Outbox,
  tenantId: string,
  entityId: string,
): Promise<void> {
  const moleculeIds = await lockMoleculesOfEntity(trx, tenantId, entityId);
  for (const { moleculeId, removed, left } of await removeEntityElements(trx, tenantId, entityId, moleculeIds)) {
    if (removed === 0) continue;
    if (left === 0) {
      await deleteMoleculeRow(trx, tenantId, moleculeId);
      await events.record({
        type: 'molecule.deleted',
        resourceId: moleculeId,
        dmrn: null,
        data: { elementCount: removed, reason: 'entity_deleted' },
      });
    } else {
      await touchMolecule(trx, tenantId, moleculeId, {});
      await events.record({
        type: 'molecule.updated',
        resourceId: moleculeId,
        dmrn: null,
        data: { changedFields: ['elements'], elementCount: left },
      });
    }
  }
}
