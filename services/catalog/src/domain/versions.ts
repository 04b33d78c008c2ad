import type { AssetKind, ListVersionsQuery, Marker, UpdateVersionBody, Version, VersionField, VersionList } from '@catalog/contracts';
import {
  fitPage,
  inTenantScope,
  inTenantTransaction,
  notFound,
  type AppError,
  type CallContext,
  type Kysely,
  type Logger,
  type Transaction,
} from '@catalog/platform';
import type { AssetClient } from '../integration/asset-client.js';
import { lockAssetState } from '../persistence/asset-states.js';
import { findEntity, type EntityRow } from '../persistence/entities.js';
import type { CatalogDb } from '../persistence/tables.js';
import {
  deleteVersionRow,
  findNewestVersion,
  findPrimaryVersion,
  findVersion,
  selectVersionRecords,
  updateVersionRow,
  type VersionChanges,
  type VersionRow,
} from '../persistence/versions.js';
import { catalogEventsFor, type CatalogEvents } from '../messaging/events.js';
import { sortMarkers, validateMarkers } from './markers.js';
import { checkVersionType } from './version-kinds.js';
import { versionCursor } from './version-cursor.js';
import { versionView } from './version-view.js';

export interface VersionDeps {
  db: Kysely<CatalogDb>;
  assets: AssetClient;
  logger: Logger;
  /** Versions an entity may have at most (and the listing's page size when the request sets none). */
  maxVersionsPerEntity: number;
}

export const DEFAULT_MAX_VERSIONS_PER_ENTITY = 500;

const entityNotFound = (): AppError => notFound('entity');
const versionNotFound = (): AppError => notFound('version');

/** Locks the entity row: every write of an entity's versions takes turns on it. */
export async function lockEntity(trx: Transaction<CatalogDb>, tenantId: string, entityId: string): Promise<EntityRow> {
  const entity = await findEntity(trx, tenantId, entityId, { forUpdate: true });
  if (!entity) throw entityNotFound();
  return entity;
}

export async function readVersion(db: Kysely<CatalogDb>, tenantId: string, entityId: string, id: string): Promise<Version> {
  const [record] = await selectVersionRecords(db, tenantId, { entityId, id });
  if (!record) throw versionNotFound();
  return versionView(record);
}

/**
 * Makes `version` the primary of its kind: demotes the current primary first (the partial unique
 * index admits one primary per kind at any moment), then records version.primary_changed.
 */
export async function makePrimary(
  trx: Transaction<CatalogDb>,
  events: CatalogEvents,
  entity: EntityRow,
  kind: AssetKind,
  versionId: string,
  previous: VersionRow | undefined,
): Promise<void> {
  if (previous && previous.id !== versionId) await updateVersionRow(trx, entity.tenant_id, previous.id, { is_primary: false });
  await updateVersionRow(trx, entity.tenant_id, versionId, { is_primary: true });
  await events.record('version.primary_changed', {
    resourceId: entity.id,
    dmrn: entity.dmrn,
    data: { kind, versionId, previousVersionId: previous?.id ?? null },
  });
}

/**
 * The versions of the entity (or of one kind), with their files' status; one query (two when
 * empty). Every one of them unless `limit` asks for fewer or they do not fit `maxBytes` (the bus
 * reply's budget, decision 0052): then `hasMore` is true and `nextCursor` continues.
 */
export async function listVersions(
  deps: Pick<VersionDeps, 'db' | 'maxVersionsPerEntity'>,
  call: CallContext,
  entityId: string,
  query: ListVersionsQuery,
  maxBytes: number,
): Promise<VersionList> {
  const after = query.after !== undefined ? versionCursor.decode(query.after) : undefined;
  const limit = query.limit ?? deps.maxVersionsPerEntity;
  return inTenantScope(deps.db, call.tenantId, async (db) => {
    const records = await selectVersionRecords(db, call.tenantId, { entityId, kind: query.kind, after, limit: limit + 1 });
    if (records.length === 0 && !(await findEntity(db, call.tenantId, entityId))) throw entityNotFound();
    const page = fitPage(records.map(versionView), limit, maxBytes);
    const last = page.items[page.items.length - 1];
    return {
      versions: page.items,
      nextCursor: page.hasMore && last ? versionCursor.encode({ kind: last.kind, id: last.id }) : null,
      hasMore: page.hasMore,
    };
  });
}

export async function getVersion(deps: Pick<VersionDeps, 'db'>, call: CallContext, entityId: string, versionId: string): Promise<Version> {
  return inTenantScope(deps.db, call.tenantId, (db) => readVersion(db, call.tenantId, entityId, versionId));
}

/**
 * Changes label or type, or makes the version primary (`isPrimary: true`). What does not change
 * is not written: no event, `updatedAt` stays.
 */
export async function updateVersion(
  deps: Pick<VersionDeps, 'db'>,
  call: CallContext,
  entityId: string,
  versionId: string,
  patch: UpdateVersionBody,
): Promise<Version> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const entity = await lockEntity(trx, call.tenantId, entityId);
    const current = await findVersion(trx, call.tenantId, entityId, versionId);
    if (!current) throw versionNotFound();
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
    const events = catalogEventsFor(trx, call);
    if (changedFields.length > 0) {
      await updateVersionRow(trx, call.tenantId, versionId, changes);
      await events.record('version.updated', {
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
export async function deleteVersion(deps: Pick<VersionDeps, 'db'>, call: CallContext, entityId: string, versionId: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const entity = await lockEntity(trx, call.tenantId, entityId);
    const current = await findVersion(trx, call.tenantId, entityId, versionId);
    if (!current) throw versionNotFound();
    await deleteVersionRow(trx, call.tenantId, versionId);
    const events = catalogEventsFor(trx, call);
    await events.record('version.deleted', {
      resourceId: versionId,
      dmrn: entity.dmrn,
      data: { entityId, kind: current.kind, assetId: current.asset_id, reason: 'deleted' },
    });
    if (!current.is_primary) return;
    const successor = await findNewestVersion(trx, call.tenantId, entityId, current.kind);
    if (successor) await updateVersionRow(trx, call.tenantId, successor.id, { is_primary: true });
    await events.record('version.primary_changed', {
      resourceId: entityId,
      dmrn: entity.dmrn,
      data: { kind: current.kind, versionId: successor?.id ?? null, previousVersionId: versionId },
    });
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
  deps: Pick<VersionDeps, 'db'>,
  call: CallContext,
  entityId: string,
  versionId: string,
  markers: Marker[],
): Promise<Version> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const entity = await lockEntity(trx, call.tenantId, entityId);
    const current = await findVersion(trx, call.tenantId, entityId, versionId);
    if (!current) throw versionNotFound();
    const state = await lockAssetState(trx, call.tenantId, current.asset_id);
    const sorted = validateMarkers(markers, { kind: current.kind, durationMs: state?.duration_ms ?? null });
    if (!sameMarkers(current.markers, sorted)) {
      await updateVersionRow(trx, call.tenantId, versionId, { markers: sorted, markers_set_by: 'hand' });
      const types = [...new Set(sorted.map((m) => m.type))];
      await catalogEventsFor(trx, call).record('markers.updated', {
        resourceId: versionId,
        dmrn: entity.dmrn,
        data: { entityId, count: sorted.length, types },
      });
    }
    return readVersion(trx, call.tenantId, entityId, versionId);
  });
}
