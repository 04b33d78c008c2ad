/**
 * Adding a version to an entity (docs/decisions/0024-versions.md, 0058), in four named phases with
 * no transaction open across a call to the asset service:
 *
 * 1. resolve the source: the entity exists and has room; the file is a new upload target
 *    (`createAsset`, bound to the version's id) or an existing asset (`getAsset`), of the kind;
 * 2. record the intent (existing assets only): committed on its own, it reserves the asset for the
 *    version and makes sure the asset is released should the version never be written (0025);
 * 3. attach (existing assets only): `attachAsset` with no transaction open;
 * 4. write: one transaction takes the intent, locks the entity, inserts the version and records its
 *    events (one primary per kind; the unique indexes refuse what the locks did not serialise).
 *
 * If the version is not written after the attach was asked, the asset is released at once, or by
 * the sweeper when the asset service does not answer.
 */
import type { Asset, AssetKind, CreatedVersion, CreateVersionBody, UploadTarget, Version } from '@catalog/contracts';
import {
  AppError,
  conflict,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  outboxFor,
  unsupportedMediaType,
  type CallContext,
  type Kysely,
  type Logger,
} from '@catalog/platform';
import type { AssetClient } from '../../integration/asset-client.js';
import { recordAssetSnapshot, lockAssetState } from '../persistence/asset-states.js';
import { factsOf } from './file-states.js';
import { isUniqueViolation } from '../../persistence/unique-violation.js';
import {
  countVersions,
  countVersionsOfEntity,
  findPrimaryVersion,
  findVersionByAsset,
  insertVersion,
  ONE_PRIMARY_PER_KIND_INDEX,
  ONE_VERSION_PER_ASSET_INDEX,
} from '../persistence/versions.js';
import {
  abandonAttachIntent,
  assetInUse,
  recordAttachIntent,
  takeAttachIntent,
  type AttachIntent,
  type AttachOutcome,
} from './attach-intents.js';
import { requestAutomaticAnalyses } from './automatic-analyses.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { lockEntity } from '../../domain/entity-lock.js';
import { makePrimary } from './primary-version.js';
import { checkVersionType, resolveKind, versionKindOfAsset } from './version-kinds.js';
import { readVersion } from './version-reads.js';

export interface VersionDeps {
  db: Kysely<CatalogDb>;
  assets: AssetClient;
  logger: Logger;
  /** Versions an entity may have at most (and the listing's page size when the request sets none). */
  maxVersionsPerEntity: number;
}

export const DEFAULT_MAX_VERSIONS_PER_ENTITY = 500;

/** What phase 1 found: the version's kind, its file and, for an upload, the signed upload target. */
interface ResolvedSource {
  kind: AssetKind;
  asset: Asset;
  upload?: UploadTarget;
}

function tooManyVersions(limit: number): AppError {
  return conflict('too_many_versions', `an entity has at most ${limit} versions`, { limit });
}

/** Phase 1, first half: 404 for an unknown entity, 409 when it has no room for another version. */
async function checkEntityHasRoom(deps: VersionDeps, call: CallContext, entityId: string): Promise<void> {
  const count = await inTenantScope(deps.db, call.tenantId, (db) => countVersionsOfEntity(db, call.tenantId, entityId));
  if (count === null) throw notFound('entity');
  if (count >= deps.maxVersionsPerEntity) throw tooManyVersions(deps.maxVersionsPerEntity);
}

/** An asset of a `source.assetId`, read from the asset service: same tenant (else 404), not expired, of the given kind. */
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
  if (asset.status === 'EXPIRED') throw conflict('asset_expired', 'the asset has expired and its file was removed', { assetId });
  return asset;
}

/** Phase 1: the entity, the file and the kind; no transaction (reads, and the asset service's calls). */
async function resolveSource(
  deps: VersionDeps,
  call: CallContext,
  entityId: string,
  versionId: string,
  input: CreateVersionBody,
): Promise<ResolvedSource> {
  const { source } = input;
  const uploadKind = source.upload ? resolveKind(input.kind, source.upload.contentType) : undefined;
  if (uploadKind) checkVersionType(uploadKind, input.versionType);
  await checkEntityHasRoom(deps, call, entityId);
  let resolved: ResolvedSource;
  if (source.upload) {
    const { upload, ...asset } = await deps.assets.createForVersion(call, { entityId, versionId }, source.upload);
    resolved = { kind: uploadKind ?? versionKindOfAsset(asset), asset, upload };
  } else if (source.assetId) {
    const asset = await existingAsset(deps, call, source.assetId, input.kind);
    resolved = { kind: versionKindOfAsset(asset), asset };
  } else {
    throw new Error('the body schema admits exactly one source');
  }
  if (resolved.asset.kind !== resolved.kind) {
    throw unsupportedMediaType(`the asset service classified the file as ${resolved.asset.kind}, not ${resolved.kind}`, {
      kind: resolved.kind,
      contentTypeKind: resolved.asset.kind,
    });
  }
  checkVersionType(resolved.kind, input.versionType);
  return resolved;
}

/** Phase 3: asks the asset service to attach the reserved asset; tells apart a refusal (an answer) from no answer. */
async function attachReservedAsset(
  deps: VersionDeps,
  call: CallContext,
  entityId: string,
  intent: AttachIntent,
): Promise<{ asset?: Asset; outcome: AttachOutcome; error?: unknown }> {
  try {
    return { asset: await deps.assets.attach(call, intent.assetId, { entityId, versionId: intent.versionId }), outcome: 'answered' };
  } catch (error) {
    // A refusal is an answer; a timeout or a missing responder is not (the attach may land later).
    return { outcome: error instanceof AppError && error.status < 500 ? 'answered' : 'unanswered', error };
  }
}

/** Maps a refusal of the unique indexes (a race the locks and the intent do not cover) to a 409. */
function raceToConflict(error: unknown, assetId: string): never {
  if (isUniqueViolation(error, ONE_VERSION_PER_ASSET_INDEX)) throw assetInUse(assetId);
  if (isUniqueViolation(error, ONE_PRIMARY_PER_KIND_INDEX))
    throw conflict('concurrent_update', 'the primary version changed meanwhile; try again');
  throw error;
}

/**
 * Phase 4: the version's transaction, with only database work in it. It takes the intent first (if
 * any), then locks the entity, so writes of one entity's versions take turns; the first version of
 * a kind is primary and `isPrimary: true` demotes the current primary.
 */
async function writeVersion(
  deps: VersionDeps,
  call: CallContext,
  plan: { id: string; entityId: string; input: CreateVersionBody; kind: AssetKind; asset: Asset; intent?: AttachIntent },
): Promise<Version> {
  const { id, entityId, input, kind, asset, intent } = plan;
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    if (intent) await takeAttachIntent(trx, intent);
    const entity = await lockEntity(trx, call.tenantId, entityId);
    if ((await countVersions(trx, call.tenantId, entityId)) >= deps.maxVersionsPerEntity) throw tooManyVersions(deps.maxVersionsPerEntity);
    const user = intent ? await findVersionByAsset(trx, call.tenantId, asset.id) : undefined;
    if (user) throw assetInUse(asset.id, user);
    await recordAssetSnapshot(trx, call.tenantId, asset.id, factsOf(asset), new Date(asset.updatedAt));
    const events = outboxFor(trx, 'catalog', call);
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
    await events.record({
      type: 'version.created',
      resourceId: id,
      dmrn: entity.dmrn,
      data: { entityId, kind, versionType: input.versionType, assetId: asset.id, isPrimary: primary },
    });
    if (primary) await makePrimary(trx, events, entity, kind, id, previous);
    const state = await lockAssetState(trx, call.tenantId, asset.id);
    if (state) await requestAutomaticAnalyses(trx, events, { tenantId: call.tenantId, entity, version: row, assetStatus: state.status });
    return readVersion(trx, call.tenantId, entityId, id);
  });
}

/**
 * Adds a version to an entity. The file comes from `source.upload` (the asset service creates an
 * attached asset bound to the entity and the version's id, and its signed upload target is
 * returned) or `source.assetId` (an asset of the tenant created earlier, attached once reserved by
 * the version's intent). Either way the asset service learns the version's id, made here first, so
 * that the version's deletion releases the file (decision 0022).
 */
export async function createVersion(
  deps: VersionDeps,
  call: CallContext,
  entityId: string,
  input: CreateVersionBody,
): Promise<CreatedVersion> {
  const id = newId();
  const { kind, asset, upload } = await resolveSource(deps, call, entityId, id, input);
  if (!input.source.assetId) {
    const version = await writeVersion(deps, call, { id, entityId, input, kind, asset }).catch((error: unknown) =>
      raceToConflict(error, asset.id),
    );
    return upload ? { ...version, upload } : version;
  }
  const intent: AttachIntent = { versionId: id, tenantId: call.tenantId, assetId: asset.id, sourceSystem: call.sourceSystem };
  await recordAttachIntent(deps.db, intent);
  const attached = await attachReservedAsset(deps, call, entityId, intent);
  try {
    if (!attached.asset) throw attached.error;
    return await writeVersion(deps, call, { id, entityId, input, kind, asset: attached.asset, intent });
  } catch (error) {
    await abandonAttachIntent(deps, call, intent, attached.outcome);
    return raceToConflict(error, asset.id);
  }
}
