import { isDeepStrictEqual } from 'node:util';
import type { Entity, TrackAnalysis, TrackField, TrackRemovalReason, Version } from '@catalog/contracts';
import { inTenantScope, inTenantTransaction, type BusEvent, type EventPosition, type Kysely, type Transaction } from '@catalog/platform';
import type { AnalysisReader } from '../integration/analysis-client.js';
import type { CatalogReader } from '../integration/catalog-client.js';
import { recordTrackEvent, type TrackEventType } from '../messaging/track-events.js';
import { claimEntityPosition, deleteTrack, findProjectedTrack, knownAssets, recordAssetState, saveTrack } from '../persistence/tracks.js';
import type { LibraryDb } from '../persistence/tables.js';
import { changedTrackFields, NO_ANALYSIS, projectTrack, type ProjectedTrack } from './track.js';

export interface ProjectionDeps {
  db: Kysely<LibraryDb>;
  catalog: CatalogReader;
  analyses: AnalysisReader;
}

/** The state of an entity the projection reads from the catalog and the analysis service. */
export interface EntityState {
  tenantId: string;
  entityId: string;
  entity: Entity | null;
  versions: Version[];
  analysis: TrackAnalysis;
}

/** What a refresh may take from the stored track instead of reading it again. */
export interface StateReuse {
  /** The stored analysis facts stand (no analysis event; not the rebuild) while the primary audio file is the same. */
  analysis: boolean;
  /** The stored versions stand: only events that never change a version (decision 0107). */
  versions: boolean;
}

/** Read everything again (the rebuild). */
export const READ_ALL: StateReuse = { analysis: false, versions: false };

/**
 * Reads an entity's state over the bus, outside any transaction (decision 0058). The entity is
 * always read. Its versions are read unless `reuse.versions` and the track stored them (decision
 * 0107). The analysis facts are read unless `reuse.analysis` and the stored track shows the same
 * primary audio file.
 */
export async function readEntityState(deps: ProjectionDeps, tenantId: string, entityId: string, reuse: StateReuse): Promise<EntityState> {
  const [entity, stored] = await Promise.all([
    deps.catalog.entity(tenantId, entityId),
    reuse.analysis || reuse.versions
      ? inTenantScope(deps.db, tenantId, (db) => findProjectedTrack(db, tenantId, entityId))
      : Promise.resolve(undefined),
  ]);
  if (entity === null) return { tenantId, entityId, entity, versions: [], analysis: NO_ANALYSIS };
  const storedVersions = reuse.versions ? (stored?.catalog_versions as Version[] | null | undefined) : undefined;
  const versions = storedVersions ?? (await deps.catalog.versions(tenantId, entityId));
  const assetId = versions.find((v) => v.kind === 'AUDIO' && v.isPrimary)?.asset.id;
  let analysis = NO_ANALYSIS;
  if (assetId !== undefined) {
    const summary = stored?.summary as ProjectedTrack['summary'] | undefined;
    analysis =
      reuse.analysis && stored && summary?.audioVersion.assetId === assetId
        ? (stored.detail as ProjectedTrack['detail']).analysis
        : await deps.analyses.facts(tenantId, assetId);
  }
  return { tenantId, entityId, entity, versions, analysis };
}

/** The catalog events that never change an entity's versions (their refresh may reuse the stored ones). */
const VERSION_NEUTRAL_EVENTS: ReadonlySet<string> = new Set(['entity.updated']);

/** What a refresh for these events may reuse: versions when none can change one, analysis facts when none is an analysis event. */
export function reuseFor(events: BusEvent[]): StateReuse {
  return {
    analysis: !events.some((e) => e.resourceKind === 'analysis'),
    versions: events.every((e) => VERSION_NEUTRAL_EVENTS.has(e.type)),
  };
}

export type ProjectionOutcome = 'added' | 'updated' | 'removed' | 'unchanged' | 'stale' | 'ignored';

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The entity an event of the catalog product is about, or null for events the library does not
 * follow (entity types, standalone files: an asset event without an entity never makes a track).
 */
export function entityOf(event: BusEvent): string | null {
  if (event.resourceKind === 'entity') return event.resourceId;
  if (['version', 'asset', 'analysis'].includes(event.resourceKind)) return str(event.data.entityId);
  return null;
}

/** What an asset event says of its file (status and duration), recorded for its entity. */
function assetFactsOf(event: BusEvent, entityId: string) {
  if (event.resourceKind !== 'asset' || event.resourceId === null) return null;
  const status = str(event.data.status);
  const durationMs = typeof event.data.durationMs === 'number' ? event.data.durationMs : null;
  return status === null ? null : { assetId: event.resourceId, entityId, status, durationMs };
}

/**
 * Applies one catalog event to the library (decision 0102): reads the entity, its versions and its
 * analyses (outside any transaction: no transaction waits on the bus), then, in one transaction
 * of the tenant, claims the entity's position (an older or repeated event changes nothing), records
 * what an asset event says of its file, and adds, updates or removes the track, with its
 * `track.*` event in the library's outbox.
 */
export function applyCatalogEvent(deps: ProjectionDeps, event: BusEvent, position: EventPosition): Promise<ProjectionOutcome> {
  return applyCatalogEvents(deps, [{ event, position }]);
}

/**
 * Applies events of one entity that waited together (in stream order; decision 0106) as one
 * refresh: the entity is read once, after all of them; its position is claimed at the last one;
 * what each asset event says of its file is recorded. Analysis facts are read again when any of
 * them is an analysis event.
 */
export async function applyCatalogEvents(
  deps: ProjectionDeps,
  items: Array<{ event: BusEvent; position: EventPosition }>,
): Promise<ProjectionOutcome> {
  const last = items[items.length - 1];
  if (!last) return 'ignored';
  const entityId = entityOf(last.event);
  if (items.some((i) => entityOf(i.event) !== entityId || i.event.tenantId !== last.event.tenantId)) {
    throw new Error('events applied together must be of one entity');
  }
  if (entityId === null) return 'ignored';
  const tenantId = last.event.tenantId;
  const state = await readEntityState(deps, tenantId, entityId, reuseFor(items.map((i) => i.event)));
  return inTenantTransaction(deps.db, tenantId, async (trx) => {
    if (!(await claimEntityPosition(trx, tenantId, entityId, last.position))) return 'stale';
    for (const { event, position } of items) {
      const asset = assetFactsOf(event, entityId);
      if (asset) await recordAssetState(trx, tenantId, asset, position);
    }
    return writeTrack(trx, state);
  });
}

/** The lane of a catalog event (decision 0106): its tenant and entity (events of no entity share one lane). */
export function laneOfEvent(event: BusEvent): string {
  return `${event.tenantId}:${entityOf(event) ?? ''}`;
}

/**
 * Brings the stored track of an entity to what the catalog's state makes of it, recording
 * `track.added`, `track.updated` (with the changed fields) or `track.removed` (with the reason).
 */
export async function writeTrack(trx: Transaction<LibraryDb>, state: EntityState): Promise<ProjectionOutcome> {
  const { tenantId, entityId, entity } = state;
  const outcome = projectTrack(entity, state.versions, await knownAssets(trx, tenantId, entityId), state.analysis);
  const stored = await findProjectedTrack(trx, tenantId, entityId);
  const record = (type: TrackEventType, data: Record<string, unknown>, dmrn: string | null) =>
    recordTrackEvent(trx, { tenantId, entityId, dmrn }, type, data);
  if ('removed' in outcome) {
    if (!(await deleteTrack(trx, tenantId, entityId))) return 'unchanged';
    const dmrn =
      entity?.externalReferences.dmrn ?? (stored?.summary as ProjectedTrack['summary'] | undefined)?.externalReferences.dmrn ?? null;
    await record('track.removed', { reason: outcome.removed satisfies TrackRemovalReason }, dmrn);
    return 'removed';
  }
  const { track } = outcome;
  const dmrn = track.summary.externalReferences.dmrn;
  if (!stored) {
    await saveTrack(trx, tenantId, track, state.versions);
    const audio = track.summary.audioVersion;
    await record('track.added', { entityType: track.summary.entityType, audioVersionId: audio.id, assetId: audio.assetId }, dmrn);
    return 'added';
  }
  const before = { summary: stored.summary, detail: stored.detail } as Pick<ProjectedTrack, 'summary' | 'detail'>;
  const changedFields: TrackField[] = changedTrackFields(before, track);
  const sameVersions = isDeepStrictEqual(stored.catalog_versions, state.versions);
  if (changedFields.length === 0 && before.summary.updatedAt === track.summary.updatedAt && sameVersions) return 'unchanged';
  await saveTrack(trx, tenantId, track, state.versions);
  if (changedFields.length === 0) return 'unchanged';
  await record('track.updated', { changedFields }, dmrn);
  return 'updated';
}
