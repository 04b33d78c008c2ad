import type { AppliedCuePointMarkers, CuePointsResult, Marker, MarkerType } from '@catalog/contracts';
import { callRpc, inTenantScope, newId, type Kysely, type Logger, type RpcCallSettings } from '@catalog/platform';
import { markMarkersApplied, type JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';
import { unwrap } from './sources.js';

/** Which marker each cue point becomes (decision 0088). */
const MARKER_OF: ReadonlyArray<[keyof CuePointsResult, MarkerType]> = [
  ['cueInMs', 'cue_in'],
  ['introEndMs', 'intro_end'],
  ['outroStartMs', 'outro_start'],
  ['nextTrackStartMs', 'segue'],
  ['cueOutMs', 'cue_out'],
];

export function cuePointMarkers(result: CuePointsResult): Marker[] {
  return MARKER_OF.flatMap(([field, type]) => {
    const positionMs = result[field];
    return positionMs === null ? [] : [{ type, positionMs }];
  });
}

/**
 * After a `cue_points` job of a version succeeded: asks the catalog to make its cue points the
 * version's markers (`applyCuePointMarkers`: only where the entity type asks for it, never over
 * markers set by hand) and notes that it was done. The result is committed already: a failure is
 * logged and leaves the markers as they were (the analysis can be requested again).
 */
export function cuePointMarkerWriter(deps: { db: Kysely<AnalysisDb>; rpc: RpcCallSettings; logger: Logger }) {
  return async (job: JobRow, result: unknown): Promise<void> => {
    if (job.type !== 'cue_points' || job.version_id === null) return;
    const markers = cuePointMarkers(result as CuePointsResult);
    try {
      const call = { tenantId: job.tenant_id, keyId: null, sourceSystem: job.source_system, requestId: newId() };
      const reply = await callRpc(
        deps.rpc,
        'catalog',
        'applyCuePointMarkers',
        { params: {}, query: {}, body: { versionId: job.version_id, markers } },
        call,
      );
      const { outcome } = unwrap<AppliedCuePointMarkers>(reply);
      if (outcome === 'applied') await inTenantScope(deps.db, job.tenant_id, (db) => markMarkersApplied(db, job.tenant_id, job.id));
    } catch (error) {
      deps.logger.warn({ err: error, jobId: job.id, versionId: job.version_id }, 'writing cue points as markers failed');
    }
  };
}
