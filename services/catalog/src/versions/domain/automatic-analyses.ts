import type { AssetStatus } from '@catalog/contracts';
import type { Kysely, Outbox } from '@catalog/platform';
import { findEntityTypeRow } from '../../entity-types/persistence/entity-types.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { markAnalysesChecked, type VersionRow } from '../persistence/versions.js';
import { normalizeAnalyses } from '../../entity-types/domain/entity-types.js';

export interface AnalysisTrigger {
  tenantId: string;
  entity: { id: string; type: string; dmrn: string | null };
  version: Pick<VersionRow, 'id' | 'kind' | 'asset_id' | 'analyses_checked_at'>;
  assetStatus: AssetStatus;
}

/**
 * "An ONLINE audio asset that is attached queues the automatic analyses enabled on the entity
 * type": the first time an AUDIO version's file is ONLINE, the entity type's automatic analyses
 * are requested with `version.analyses_requested` (in the caller's transaction), which the
 * analysis service consumes. Each version is checked once (`analyses_checked_at`), whether or not
 * its type has analyses then, so redelivered or reordered asset events never request twice.
 * Callers hold the locks that serialise writers of the version (entity row or asset state row).
 */
export async function requestAutomaticAnalyses(db: Kysely<CatalogDb>, events: Outbox, trigger: AnalysisTrigger): Promise<boolean> {
  const { version, entity, tenantId } = trigger;
  if (version.kind !== 'AUDIO' || trigger.assetStatus !== 'ONLINE' || version.analyses_checked_at !== null) return false;
  await markAnalysesChecked(db, tenantId, version.id);
  const entityType = await findEntityTypeRow(db, tenantId, entity.type);
  const analysisTypes = entityType ? normalizeAnalyses(entityType.automatic_analyses) : [];
  if (analysisTypes.length === 0) return false;
  await events.record({
    type: 'version.analyses_requested',
    resourceId: version.id,
    dmrn: entity.dmrn,
    data: { entityId: entity.id, assetId: version.asset_id, entityType: entity.type, analysisTypes },
  });
  return true;
}
