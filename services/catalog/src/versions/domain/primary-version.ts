/**
 * The primary version rule (decision 0024): an entity has at most one primary version of each
 * kind, and a kind that has versions has one. The first version of a kind becomes primary, a
 * version made primary demotes the current one, and deleting the primary promotes the newest
 * remaining version of its kind; each change records `version.primary_changed` and makes the
 * entity's assignments pending again (decision 0132). Callers hold the entity's lock (`lockEntity`).
 */
import type { AssetKind } from '@catalog/contracts';
import type { Outbox, Transaction } from '@catalog/platform';
import { markAssignmentsPending } from '../../integrations/domain/assignment-cascades.js';
import type { EntityRow } from '../../persistence/entities.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { findNewestVersion, updateVersionRow, type VersionRow } from '../persistence/versions.js';

/**
 * Makes `version` the primary of its kind: demotes the current primary first (the partial unique
 * index admits one primary per kind at any moment), then records version.primary_changed.
 */
export async function makePrimary(
  trx: Transaction<CatalogDb>,
  events: Outbox,
  entity: EntityRow,
  kind: AssetKind,
  versionId: string,
  previous: VersionRow | undefined,
): Promise<void> {
  if (previous && previous.id !== versionId) await updateVersionRow(trx, entity.tenant_id, previous.id, { is_primary: false });
  await updateVersionRow(trx, entity.tenant_id, versionId, { is_primary: true });
  await events.record({
    type: 'version.primary_changed',
    resourceId: entity.id,
    dmrn: entity.dmrn,
    data: { kind, versionId, previousVersionId: previous?.id ?? null },
  });
  await markAssignmentsPending(trx, events, entity);
}

/**
 * After the primary of `kind` (`deletedId`) was deleted: the newest remaining version of that kind
 * becomes primary, or the kind is left without versions (version.primary_changed either way).
 */
export async function promoteNewest(
  trx: Transaction<CatalogDb>,
  events: Outbox,
  entity: EntityRow,
  kind: AssetKind,
  deletedId: string,
): Promise<void> {
  const successor = await findNewestVersion(trx, entity.tenant_id, entity.id, kind);
  if (successor) await updateVersionRow(trx, entity.tenant_id, successor.id, { is_primary: true });
  await events.record({
    type: 'version.primary_changed',
    resourceId: entity.id,
    dmrn: entity.dmrn,
    data: { kind, versionId: successor?.id ?? null, previousVersionId: deletedId },
  });
  await markAssignmentsPending(trx, events, entity);
}
