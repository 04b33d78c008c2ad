import { isDeepStrictEqual } from 'node:util';
import type { Entity, TrackAnalysis, TrackField, TrackRemovalReason, Version } from '@catalog/contracts';
import { inTenantScope, inTenantTransaction, type BusEvent, type EventPosition, type Kysely, type Transaction } from '@catalog/platform';
import type { AnalysisReader } from '../integration/analysis-client.js';
import type { CatalogReader } from '../integration/catalog-client.js';
import { recordTrackEvents, type TrackEvent } from '../persistence/track-events.js';
import {
  claimEntityPositions,
  deleteTracks,
  findProjectedTracks,
  knownAssetsOf,
  recordAssetState,
  saveTracks,
} from '../persistence/tracks.js';
import type { LibraryDb } from '../persistence/tables.js';
import { analysisFacts } from './analysis-facts.js';
import { applyRelationEvents, keepEntityTitles } from './relation-projection.js';
import { assignmentFactsOf } from './assignment-facts.js';
import { recordAssignmentState } from '../persistence/assignments.js';
import type { RefreshesInFlight } from './refreshes-in-flight.js';
import { changedTrackFields, NO_ANALYSIS, projectTrack, type KnownAsset, type ProjectedTrack } from './track.js';

export interface ProjectionDeps {
  db: Kysely<LibraryDb>;
  catalog: CatalogReader;
  analyses: AnalysisReader;
  /** The refreshes the process's consumers are running: one waits for the other's (decision 0176). */
  inFlight?: RefreshesInFlight;
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

type StoredTrack = { summary: unknown; detail: unknown; catalog_versions: unknown };

/**
 * Reads the states of entities of one tenant over the bus, outside any transaction (decision
 * 0058): the entities in one catalog call (decision 0111), and, for those that may reuse what
 * their track stored, the stored tracks in one query at the same time. An entity's versions are
 * read unless `reuse.versions` and its track stored them (decision 0107); its analysis facts
 * unless `reuse.analysis` and the stored track shows the same primary audio file.
 */
export async function readEntityStates(
  deps: ProjectionDeps,
  tenantId: string,
  requests: ReadonlyArray<{ entityId: string; reuse: StateReuse }>,
): Promise<EntityState[]> {
  const reusing = requests.filter((r) => r.reuse.analysis || r.reuse.versions).map((r) => r.entityId);
  const [entities, stored] = await Promise.all([
    deps.catalog.entities(
      tenantId,
      requests.map((r) => r.entityId),
    ),
    reusing.length > 0
      ? inTenantScope(deps.db, tenantId, (db) => findProjectedTracks(db, tenantId, reusing))
      : Promise.resolve(new Map<string, StoredTrack>()),
  ]);
  return Promise.all(
    requests.map((r) => completeState(deps, tenantId, r.entityId, r.reuse, entities.get(r.entityId) ?? null, stored.get(r.entityId))),
  );
}

/** An entity's state: its versions and analysis facts, read or taken from its stored track. */
async function completeState(
  deps: ProjectionDeps,
  tenantId: string,
  entityId: string,
  reuse: StateReuse,
  entity: Entity | null,
  stored: StoredTrack | undefined,
): Promise<EntityState> {
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
        : analysisFacts(await deps.analyses.newest(tenantId, assetId));
  }
  return { tenantId, entityId, entity, versions, analysis };
}

/** One entity's state (the rebuild). */
export async function readEntityState(deps: ProjectionDeps, tenantId: string, entityId: string, reuse: StateReuse): Promise<EntityState> {
  const [state] = await readEntityStates(deps, tenantId, [{ entityId, reuse }]);
  return state!;
}

/** The catalog events that never change an entity's versions (their refresh may reuse the stored ones). */
const VERSION_NEUTRAL_EVENTS: ReadonlySet<string> = new Set([
  'entity.updated',
  'assignment.created',
  'assignment.deleted',
  'assignment.sync_state_changed',
]);

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
  if (['version', 'asset', 'analysis', 'assignment'].includes(event.resourceKind)) return str(event.data.entityId);
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
  const [outcome] = await applyCatalogEventLanes(deps, [items]);
  return outcome!;
}

type LaneItems = ReadonlyArray<{ event: BusEvent; position: EventPosition }>;

/** An entity to refresh: the lane's events, all of that entity of that tenant. */
interface Refresh {
  lane: number;
  entityId: string;
  items: LaneItems;
}

/**
 * Applies the waiting events of several entities (their lanes, decision 0111) as one refresh per
 * entity, the entities of a tenant together: read in one catalog call, then written in one
 * transaction (positions claimed in one statement, the tracks and their `track.*` events in one
 * statement each). Returns each lane's outcome. A lane with events of two entities is refused.
 * The lanes of no entity apply their relation events (decision 0136).
 */
export async function applyCatalogEventLanes(deps: ProjectionDeps, lanes: readonly LaneItems[]): Promise<ProjectionOutcome[]> {
  const outcomes: ProjectionOutcome[] = lanes.map(() => 'ignored');
  const byTenant = new Map<string, Refresh[]>();
  const ofNoEntity: number[] = [];
  lanes.forEach((items, lane) => {
    const last = items[items.length - 1];
    if (!last) return;
    const entityId = entityOf(last.event);
    if (items.some((i) => entityOf(i.event) !== entityId || i.event.tenantId !== last.event.tenantId)) {
      throw new Error('events applied together must be of one entity');
    }
    if (entityId === null) {
      ofNoEntity.push(lane);
      return;
    }
    const refreshes = byTenant.get(last.event.tenantId) ?? [];
    if (refreshes.some((r) => r.entityId === entityId)) throw new Error('an entity is refreshed once per batch');
    byTenant.set(last.event.tenantId, [...refreshes, { lane, entityId, items }]);
  });
  for (const [tenantId, refreshes] of byTenant) {
    const done = await refreshEntities(deps, tenantId, refreshes);
    refreshes.forEach((r, k) => (outcomes[r.lane] = done[k]!));
  }
  for (const lane of ofNoEntity) if (await applyRelationEvents(deps, lanes[lane]!)) outcomes[lane] = 'updated';
  return outcomes;
}

/**
 * Refreshes entities of one tenant: their states read, then one transaction writes them. An
 * entity another consumer of this process is refreshing at this lane's last position or later is
 * left to it (decision 0176): once its refresh commits, this lane is stale without a read. Only
 * lanes without a file's or an assignment's facts, which each claim records, are left so.
 */
async function refreshEntities(deps: ProjectionDeps, tenantId: string, refreshes: readonly Refresh[]): Promise<ProjectionOutcome[]> {
  if (!deps.inFlight) return readAndWrite(deps, tenantId, refreshes);
  const covering = new Map<string, Promise<boolean>>();
  const mine: Array<(committed: boolean) => void> = [];
  // Entered together, synchronously: a batch only ever waits for batches entered before it.
  for (const r of refreshes) {
    if (!r.items.every(({ event }) => assetFactsOf(event, r.entityId) === null && assignmentFactsOf(event) === null)) continue;
    const entry = deps.inFlight.enter(tenantId, r.entityId, r.items[r.items.length - 1]!.position);
    if ('covered' in entry) covering.set(r.entityId, entry.covered);
    else mine.push(entry.done);
  }
  let committed = false;
  try {
    const covered = new Set<string>();
    for (const [entityId, ended] of covering) if (await ended) covered.add(entityId);
    const pending = refreshes.filter((r) => !covered.has(r.entityId));
    const done = pending.length > 0 ? await readAndWrite(deps, tenantId, pending) : [];
    committed = true;
    return refreshes.map((r) => (covered.has(r.entityId) ? 'stale' : done[pending.indexOf(r)]!));
  } finally {
    for (const end of mine) end(committed);
  }
}

/** The entities' states read, then one transaction writes them. */
async function readAndWrite(deps: ProjectionDeps, tenantId: string, refreshes: readonly Refresh[]): Promise<ProjectionOutcome[]> {
  const states = await readEntityStates(
    deps,
    tenantId,
    refreshes.map((r) => ({ entityId: r.entityId, reuse: reuseFor(r.items.map((i) => i.event)) })),
  );
  return inTenantTransaction(deps.db, tenantId, async (trx) => {
    const claimed = await claimEntityPositions(
      trx,
      tenantId,
      refreshes.map((r) => ({ entityId: r.entityId, position: r.items[r.items.length - 1]!.position })),
    );
    for (const r of refreshes.filter((r) => claimed.has(r.entityId))) {
      for (const { event, position } of r.items) {
        const asset = assetFactsOf(event, r.entityId);
        if (asset) await recordAssetState(trx, tenantId, asset, position);
        const assignment = assignmentFactsOf(event);
        if (assignment) await recordAssignmentState(trx, tenantId, assignment, position);
      }
    }
    const written = await writeTracks(
      trx,
      states.filter((s) => claimed.has(s.entityId)),
    );
    return refreshes.map((r) => (claimed.has(r.entityId) ? written.get(r.entityId)! : 'stale'));
  });
}

/** The lane of a catalog event (decision 0106): its tenant and entity (events of no entity share one lane). */
export function laneOfEvent(event: BusEvent): string {
  return `${event.tenantId}:${entityOf(event) ?? ''}`;
}

/** What a refresh does to an entity's stored track. */
interface TrackWrite {
  outcome: ProjectionOutcome;
  save?: ProjectedTrack;
  remove?: true;
  event?: TrackEvent;
}

/** What the catalog's state makes of an entity's stored track (a pure comparison, decision 0102). */
function planTrackWrite(state: EntityState, known: Map<string, KnownAsset>, stored: StoredTrack | undefined): TrackWrite {
  const { entityId, entity } = state;
  const outcome = projectTrack(entity, state.versions, known, state.analysis);
  if ('removed' in outcome) {
    if (!stored) return { outcome: 'unchanged' };
    const dmrn =
      entity?.externalReferences.dmrn ?? (stored.summary as ProjectedTrack['summary'] | undefined)?.externalReferences.dmrn ?? null;
    const data = { reason: outcome.removed satisfies TrackRemovalReason };
    return { outcome: 'removed', remove: true, event: { type: 'track.removed', resourceId: entityId, dmrn, data } };
  }
  const { track } = outcome;
  const dmrn = track.summary.externalReferences.dmrn;
  if (!stored) {
    const audio = track.summary.audioVersion;
    const data = { entityType: track.summary.entityType, audioVersionId: audio.id, assetId: audio.assetId };
    return { outcome: 'added', save: track, event: { type: 'track.added', resourceId: entityId, dmrn, data } };
  }
  const before = { summary: stored.summary, detail: stored.detail } as Pick<ProjectedTrack, 'summary' | 'detail'>;
  const changedFields: TrackField[] = changedTrackFields(before, track);
  const sameVersions = isDeepStrictEqual(stored.catalog_versions, state.versions);
  if (changedFields.length === 0 && before.summary.updatedAt === track.summary.updatedAt && sameVersions) return { outcome: 'unchanged' };
  if (changedFields.length === 0) return { outcome: 'unchanged', save: track };
  return { outcome: 'updated', save: track, event: { type: 'track.updated', resourceId: entityId, dmrn, data: { changedFields } } };
}

/**
 * Brings the stored tracks of entities (of one tenant, each claimed by this transaction) to what
 * the catalog's state makes of them, recording `track.added`, `track.updated` (with the changed
 * fields) or `track.removed` (with the reason): the files and the stored tracks read in one query
 * each, the tracks removed, saved and their events recorded in one statement each. Returns each
 * entity's outcome.
 */
export async function writeTracks(trx: Transaction<LibraryDb>, states: readonly EntityState[]): Promise<Map<string, ProjectionOutcome>> {
  const tenantId = states[0]?.tenantId;
  if (tenantId === undefined) return new Map();
  const ids = states.map((s) => s.entityId);
  const [known, stored] = [await knownAssetsOf(trx, tenantId, ids), await findProjectedTracks(trx, tenantId, ids)];
  const writes = states.map((state) => planTrackWrite(state, known.get(state.entityId)!, stored.get(state.entityId)));
  await deleteTracks(
    trx,
    tenantId,
    states.filter((_, k) => writes[k]!.remove).map((s) => s.entityId),
  );
  await saveTracks(
    trx,
    tenantId,
    states.flatMap((s, k) => (writes[k]!.save ? [{ track: writes[k]!.save!, versions: s.versions }] : [])),
  );
  await recordTrackEvents(
    trx,
    tenantId,
    writes.flatMap((w) => (w.event ? [w.event] : [])),
  );
  await keepEntityTitles(trx, tenantId, states);
  return new Map(states.map((s, k) => [s.entityId, writes[k]!.outcome]));
}

/** `writeTracks` of one entity (the rebuild). */
export async function writeTrack(trx: Transaction<LibraryDb>, state: EntityState): Promise<ProjectionOutcome> {
  return (await writeTracks(trx, [state])).get(state.entityId)!;
}
