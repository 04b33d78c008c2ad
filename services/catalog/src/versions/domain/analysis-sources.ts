import type {
  AppliedCuePointMarkers,
  ApplyCuePointMarkersBody,
  Marker,
  ResolveAnalysisSourceBody,
  ResolvedAnalysisSource,
} from '@catalog/contracts';
import {
  AppError,
  conflict,
  inTenantScope,
  inTenantTransaction,
  notFound,
  outboxFor,
  type CallContext,
  type Kysely,
} from '@catalog/platform';
import { entityOfVersion, findEntityPrimaryAudio, findSourceVersion } from '../persistence/analysis-sources.js';
import { lockAssetState } from '../persistence/asset-states.js';
import { findEntityTypeRow } from '../../entity-types/persistence/entity-types.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { findVersion, updateVersionRow } from '../persistence/versions.js';
import { sortMarkers, validateMarkers } from './markers.js';
import { lockEntity } from '../../domain/entity-lock.js';

export interface AnalysisSourceDeps {
  db: Kysely<CatalogDb>;
}

const notAudio = (kind: string): AppError =>
  new AppError(415, 'source_not_audio', `only audio can be analysed; the version is ${kind}`, { kind });
const notOnline = (status: string): AppError =>
  conflict('source_not_online', `the file is ${status}; only ONLINE audio can be analysed`, { status });

/**
 * An analysis source for the analysis service (decision 0085): `{versionId}` is that version, which
 * must be AUDIO (415) with its file ONLINE (409); `{entityId}` is the entity's primary AUDIO
 * version, which must exist and be ONLINE (409 `no_primary_audio_version`, `source_not_online`).
 * An unknown or another tenant's id is 404.
 */
export async function resolveAnalysisSource(
  deps: AnalysisSourceDeps,
  call: CallContext,
  source: ResolveAnalysisSourceBody,
): Promise<ResolvedAnalysisSource> {
  return inTenantScope(deps.db, call.tenantId, async (db) => {
    if (source.versionId !== undefined) {
      const version = await findSourceVersion(db, call.tenantId, source.versionId);
      if (!version) throw notFound('version');
      if (version.kind !== 'AUDIO') throw notAudio(version.kind);
      if (version.asset_status !== 'ONLINE') throw notOnline(version.asset_status);
      return { entityId: version.entity_id, versionId: version.id, assetId: version.asset_id, dmrn: version.dmrn };
    }
    const entity = await findEntityPrimaryAudio(db, call.tenantId, source.entityId!);
    if (!entity) throw notFound('entity');
    if (entity.version_id === null || entity.asset_id === null) {
      throw conflict('no_primary_audio_version', 'the entity has no primary AUDIO version to analyse', { entityId: entity.entity_id });
    }
    if (entity.asset_status !== 'ONLINE') throw notOnline(entity.asset_status ?? 'PENDING_UPLOAD');
    return { entityId: entity.entity_id, versionId: entity.version_id, assetId: entity.asset_id, dmrn: entity.dmrn };
  });
}

/** Positions past the end of the file (the decoder may read a few milliseconds more than the header says) are the end. */
function clampToDuration(markers: readonly Marker[], durationMs: number | null): Marker[] {
  return durationMs === null ? [...markers] : markers.map((m) => ({ ...m, positionMs: Math.min(m.positionMs, durationMs) }));
}

/**
 * Writes an analysis' cue points as the markers of a version (decision 0088) when its entity type
 * asks for it (`cuePointMarkers`) and its markers were not set by hand (`PUT …/markers` wins for
 * good); the set is checked like any other (400 invalid_markers) and records markers.updated.
 * Takes the entity's lock like every write of its versions, so a PUT racing it goes before or after.
 */
export async function applyCuePointMarkers(
  deps: AnalysisSourceDeps,
  call: CallContext,
  body: ApplyCuePointMarkersBody,
): Promise<AppliedCuePointMarkers> {
  const entityId = await inTenantScope(deps.db, call.tenantId, (db) => entityOfVersion(db, call.tenantId, body.versionId));
  if (entityId === null) throw notFound('version');
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const entity = await lockEntity(trx, call.tenantId, entityId);
    const version = await findVersion(trx, call.tenantId, entityId, body.versionId);
    if (!version) throw notFound('version');
    const entityType = await findEntityTypeRow(trx, call.tenantId, entity.type);
    if (!entityType?.cue_point_markers) return { outcome: 'not_enabled' };
    if (version.markers_set_by === 'hand') return { outcome: 'set_by_hand' };
    const state = await lockAssetState(trx, call.tenantId, version.asset_id);
    const durationMs = state?.duration_ms ?? null;
    const markers = validateMarkers(clampToDuration(body.markers, durationMs), { kind: version.kind, durationMs });
    if (JSON.stringify(sortMarkers(version.markers)) === JSON.stringify(markers)) return { outcome: 'unchanged' };
    await updateVersionRow(trx, call.tenantId, version.id, { markers, markers_set_by: 'analysis' });
    await outboxFor(trx, 'catalog', call).record({
      type: 'markers.updated',
      resourceId: version.id,
      dmrn: entity.dmrn,
      data: { entityId, count: markers.length, types: [...new Set(markers.map((m) => m.type))] },
    });
    return { outcome: 'applied' };
  });
}
