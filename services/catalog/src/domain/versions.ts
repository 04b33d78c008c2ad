import type {
  Asset,
  AssetKind,
  CreatedVersion,
  CreateVersionBody,
  ListVersionsQuery,
  Marker,
  UpdateVersionBody,
  UploadTarget,
  Version,
  VersionField,
  VersionList,
} from '@catalog/contracts';
import {
  conflict,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  unsupportedMediaType,
  AppError,
  fitPage,
  type CallContext,
  type Kysely,
  type Logger,
  type Transaction,
} from '@catalog/platform';
import type { AssetClient } from '../integration/asset-client.js';
import { lockAssetState, recordAssetSnapshot, type AssetFacts } from '../persistence/asset-states.js';
import { findEntity, type EntityRow } from '../persistence/entities.js';
import type { CatalogDb } from '../persistence/tables.js';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import {
  countVersions,
  deleteVersionRow,
  findNewestVersion,
  findPrimaryVersion,
  findVersion,
  findVersionByAsset,
  insertVersion,
  ONE_PRIMARY_PER_KIND_INDEX,
  ONE_VERSION_PER_ASSET_INDEX,
  selectVersionRecords,
  updateVersionRow,
  type VersionChanges,
  type VersionRow,
} from '../persistence/versions.js';
import { abandonAttachIntent, recordAttachIntent, takeAttachIntent, type AttachIntent, type AttachOutcome } from './attach-intents.js';
import { requestAutomaticAnalyses } from './automatic-analyses.js';
import { catalogEventsFor, type CatalogEvents } from './events.js';
import { sortMarkers, validateMarkers } from './markers.js';
import { checkVersionType, resolveKind } from './version-kinds.js';
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

function factsOf(asset: Asset): AssetFacts {
  return { status: asset.status, kind: asset.kind, contentType: asset.contentType, size: asset.size, durationMs: asset.durationMs };
}

/** Locks the entity row: every write of an entity's versions takes turns on it. */
async function lockEntity(trx: Transaction<CatalogDb>, tenantId: string, entityId: string): Promise<EntityRow> {
  const entity = await findEntity(trx, tenantId, entityId, { forUpdate: true });
  if (!entity) throw entityNotFound();
  return entity;
}

async function readVersion(db: Kysely<CatalogDb>, tenantId: string, entityId: string, id: string): Promise<Version> {
  const [record] = await selectVersionRecords(db, tenantId, { entityId, id });
  if (!record) throw versionNotFound();
  return versionView(record);
}

/**
 * Makes `version` the primary of its kind: demotes the current primary first (the partial unique
 * index admits one primary per kind at any moment), then records version.primary_changed.
 */
async function makePrimary(
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

/** The asset of a `source.assetId`, read from the asset service: same tenant (else 404), usable, of the kind. */
async function existingAsset(deps: VersionDeps, call: CallContext, assetId: string, given: AssetKind | undefined): Promise<Asset> {
  const asset = await deps.assets.get(call, assetId);
  if (given !== undefined && given !== asset.kind) {
    throw unsupportedMediaType(`the asset is ${asset.kind} (${asset.contentType}); it cannot be the file of a ${given} version`, {
      assetId,
      kind: given,
      contentType: asset.contentType,
      contentTypeKind: asset.kind,
    });
  }
  if (asset.status === 'EXPIRED') {
    throw conflict('asset_expired', 'the asset has expired and its file was removed', { assetId });
  }
  return asset;
}

/** Maps a refusal of the unique indexes (a race the entity lock does not cover) to a 409. */
function raceToConflict(error: unknown, assetId: string): never {
  if (isUniqueViolation(error, ONE_VERSION_PER_ASSET_INDEX)) {
    throw conflict('asset_in_use', 'the asset is already the file of another version', { assetId });
  }
  if (isUniqueViolation(error, ONE_PRIMARY_PER_KIND_INDEX)) {
    throw conflict('concurrent_update', 'the primary version changed meanwhile; try again');
  }
  throw error;
}

/**
 * Adds a version to an entity (docs/decisions/0024-versions.md).
 *
 * The file comes from `source.upload` (the asset service creates an attached asset bound to the
 * entity and its signed upload target is returned) or `source.assetId` (an asset of the tenant
 * created earlier; attached to the entity once the version row holds it). Either way the asset
 * service learns the version's id, made here first, so that the version's deletion releases the
 * file (decision 0022). The first version of a kind is primary; `isPrimary: true` demotes the
 * current primary. The entity row is locked for the whole write, so concurrent additions take
 * turns and exactly one primary per kind holds.
 *
 * An existing asset is attached by the asset service while the version's transaction runs, so a
 * transaction that then fails (or a process that dies before the commit) would leave it the file
 * of a version that does not exist. An attach intent committed before the transaction, and deleted
 * by it, covers that (decision 0025): on failure the asset is released at once when the asset
 * service answers, otherwise the intent stays and the catalog's sweeper releases it later.
 */
export async function createVersion(deps: VersionDeps, call: CallContext, entityId: string, input: CreateVersionBody): Promise<CreatedVersion> {
  const { source } = input;
  const uploadKind = source.upload ? resolveKind(input.kind, source.upload.contentType) : undefined;
  if (uploadKind) checkVersionType(uploadKind, input.versionType);
  const exists = await inTenantScope(deps.db, call.tenantId, (db) => findEntity(db, call.tenantId, entityId));
  if (!exists) throw entityNotFound();

  const id = newId();
  let asset: Asset;
  let upload: UploadTarget | undefined;
  if (source.upload) {
    const created = await deps.assets.createForVersion(call, { entityId, versionId: id }, source.upload);
    asset = created;
    upload = created.upload;
  } else if (source.assetId) {
    asset = await existingAsset(deps, call, source.assetId, input.kind);
  } else {
    throw new Error('the body schema admits exactly one source');
  }
  const kind = uploadKind ?? asset.kind;
  if (asset.kind !== kind) throw unsupportedMediaType(`the asset service classified the file as ${asset.kind}, not ${kind}`, { kind, contentTypeKind: asset.kind });
  checkVersionType(kind, input.versionType);

  // Committed before the version's transaction, which deletes it first thing: should that
  // transaction not commit after the attach, the intent makes sure the asset is released.
  const intent: AttachIntent | undefined = source.assetId
    ? { versionId: id, tenantId: call.tenantId, assetId: asset.id, sourceSystem: call.sourceSystem }
    : undefined;
  if (intent) await recordAttachIntent(deps.db, intent);
  let attach: AttachOutcome = 'not_requested';
  try {
    const version = await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
      if (intent) await takeAttachIntent(trx, intent);
      const entity = await lockEntity(trx, call.tenantId, entityId);
      if ((await countVersions(trx, call.tenantId, entityId)) >= deps.maxVersionsPerEntity) {
        throw conflict('too_many_versions', `an entity has at most ${deps.maxVersionsPerEntity} versions`, { limit: deps.maxVersionsPerEntity });
      }
      if (source.assetId) {
        const user = await findVersionByAsset(trx, call.tenantId, asset.id);
        if (user) throw conflict('asset_in_use', 'the asset is already the file of another version', { assetId: asset.id, versionId: user.id, entityId: user.entity_id });
      }
      await recordAssetSnapshot(trx, call.tenantId, asset.id, factsOf(asset), new Date(asset.updatedAt));
      const events = catalogEventsFor(trx, call);
      const previous = await findPrimaryVersion(trx, call.tenantId, entityId, kind);
      const primary = previous === undefined || input.isPrimary === true;
      const row = await insertVersion(trx, {
        id,
        tenantId: call.tenantId,
        entityId,
        kind,
        label: input.label,
        versionType: input.versionType,
        isPrimary: false,
        assetId: asset.id,
      });
      if (source.assetId) {
        // After the insert: the unique index on the asset has already turned away a concurrent
        // version of the same asset, so only the winner rebinds the asset to its entity.
        attach = 'unanswered';
        const attached = await deps.assets.attach(call, asset.id, { entityId, versionId: id }).catch((error: unknown) => {
          // A refusal is an answer; a timeout or a missing responder is not (the attach may land later).
          if (error instanceof AppError && error.status < 500) attach = 'answered';
          throw error;
        });
        attach = 'answered';
        await recordAssetSnapshot(trx, call.tenantId, asset.id, factsOf(attached), new Date(attached.updatedAt));
      }
      await events.record('version.created', {
        resourceId: id,
        dmrn: entity.dmrn,
        data: { entityId, kind, versionType: input.versionType, assetId: asset.id, isPrimary: primary },
      });
      if (primary) await makePrimary(trx, events, entity, kind, id, previous);
      const state = await lockAssetState(trx, call.tenantId, asset.id);
      if (state) await requestAutomaticAnalyses(trx, events, { tenantId: call.tenantId, entity, version: row, assetStatus: state.status });
      return readVersion(trx, call.tenantId, entityId, id);
    });
    return upload ? { ...version, upload } : version;
  } catch (error) {
    if (intent) await abandonAttachIntent(deps, call, intent, attach);
    return raceToConflict(error, asset.id);
  }
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
      await events.record('version.updated', { resourceId: versionId, dmrn: entity.dmrn, data: { entityId, kind: current.kind, changedFields } });
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
      await updateVersionRow(trx, call.tenantId, versionId, { markers: sorted });
      const types = [...new Set(sorted.map((m) => m.type))];
      await catalogEventsFor(trx, call).record('markers.updated', { resourceId: versionId, dmrn: entity.dmrn, data: { entityId, count: sorted.length, types } });
    }
    return readVersion(trx, call.tenantId, entityId, versionId);
  });
}
