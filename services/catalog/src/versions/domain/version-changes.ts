/**
 * Changes of an existing version: its label and type, its primacy, its deletion and its markers.
 * Each runs in one transaction that holds the entity's lock and records its events.
 */
import type { Marker, UpdateVersionBody, Version, VersionField } from '@catalog/contracts';
import { inTenantTransaction, notFound, outboxFor, type CallContext, type Kysely, type Transaction } from '@catalog/platform';
import type { EntityRow } from '../../persistence/entities.js';
import { lockAssetState } from '../persistence/asset-states.js';
import type { CatalogDb } from '../../persistence/tables.js';
import {
  deleteVersionRow,
  findPrimaryVersion,
  findVersion,
  updateVersionRow,
  type VersionChanges,
  type VersionRow,
} from '../persistence/versions.js';
import { lockEntity } from '../../domain/entity-lock.js';
import { sortMarkers, validateMarkers } from './markers.js';
import { makePrimary, promoteNewest } from './primary-version.js';
import { checkVersionType } from './version-kinds.js';
import { readVersion } from './version-reads.js';

/** Locks the entity (404 if missing), then reads the version (404 if the entity has no such version). */
async function lockVersion(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  entityId: string,
  versionId: string,
): Promise<{ entity: EntityRow; current: VersionRow }> {
  const entity = await lockEntity(trx, tenantId, entityId);
  const current = await findVersion(trx, tenantId, entityId, versionId);
  if (!current) throw notFound('version');
  return { entity, current };
}

/**
 * Changes label or type, or makes the version primary (`isPrimary: true`). What does not change
 * is not written: no event, `updatedAt` stays.
 */
export async function updateVersion(
  deps: { db: Kysely<CatalogDb> },
  call: CallContext,
  entityId: string,
  versionId: string,
  patch: UpdateVersionBody,
): Promise<Version> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const { entity, current } = await lockVersion(trx, call.tenantId, entityId, versionId);
    const changes: VersionChanges = {};
    const changedFields: VersionField[] = [];
    if (patch.label !== undefined && patch.label !== current.label) {
      changes.label = patch.label;
      changedFields.push('label');
    }
    if (patch.versionType !== undefined && patch.versionType !== current.version_type) {
      checkVersionType(current.kind, patch.versionType);
      changes.version_type = patch.versionType;
      changedFields.push('versionType');
    }
    const events = outboxFor(trx, 'catalog', call);
    if (changedFields.length > 0) {
      await updateVersionRow(trx, call.tenantId, versionId, changes);
      await events.record({
        type: 'version.updated',
        resourceId: versionId,
        dmrn: entity.dmrn,
        data: { entityId, kind: current.kind, changedFields },
      });
    }
    if (patch.isPrimary === true && !current.is_primary) {
      const previous = await findPrimaryVersion(trx, call.tenantId, entityId, current.kind);
      await makePrimary(trx, events, entity, current.kind, versionId, previous);
    }
    return readVersion(trx, call.tenantId, entityId, versionId);
  });
}

/**
 * Deletes a version. When it was the primary of its kind, the newest remaining version of that
 * kind becomes primary, or the kind is left without versions (version.primary_changed either way).
 * The asset service releases the file when it reads the version.deleted event (decision 0022).
 */
export async function deleteVersion(
  deps: { db: Kysely<CatalogDb> },
  call: CallContext,
  entityId: string,
  versionId: string,
): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const { entity, current } = await lockVersion(trx, call.tenantId, entityId, versionId);
    await deleteVersionRow(trx, call.tenantId, versionId);
    const events = outboxFor(trx, 'catalog', call);
    await events.record({
      type: 'version.deleted',
      resourceId: versionId,
      dmrn: entity.dmrn,
      data: { entityId, kind: current.kind, assetId: current.asset_id, reason: 'deleted' },
    });
    if (current.is_primary) await promoteNewest(trx, events, entity, current.kind, versionId);
  });
}

function sameMarkers(a: readonly Marker[], b: readonly Marker[]): boolean {
  return JSON.stringify(sortMarkers(a)) === JSON.stringify(sortMarkers(b));
}

/**
 * Replaces the markers of a version after checking them against each other and the duration of
 * its file as the catalog knows it now (the file's row is locked, so a confirmation arriving
 * meanwhile waits). The same set again writes nothing.
 */
export async function putVersionMarkers(
  deps: { db: Kysely<CatalogDb> },
  call: CallContext,
  entityId: string,
  versionId: string,
  markers: Marker[],
): Promise<Version> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const { entity, current } = await lockVersion(trx, call.tenantId, entityId, versionId);
    const state = await lockAssetState(trx, call.tenantId, current.asset_id);
    const sorted = validateMarkers(markers, { kind: current.kind, durationMs: state?.duration_ms ?? null });
    if (!sameMarkers(current.markers, sorted)) {
      await updateVersionRow(trx, call.tenantId, versionId, { markers: sorted, markers_set_by: 'hand' });
      const types = [...new Set(sorted.map((m) => m.type))];
      await outboxFor(trx, 'catalog', call).record({
        type: 'markers.updated',
        resourceId: versionId,
        dmrn: entity.dmrn,
        data: { entityId, count: sorted.length, types },
      });
    }
    return readVersion(trx, call.tenantId, entityId, versionId);
  });
}
