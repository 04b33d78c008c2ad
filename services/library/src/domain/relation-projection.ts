import { MAX_TRACK_RELATIONS, SYMMETRIC_RELATION_TYPES, type RelationType, type TrackRelation } from '@catalog/contracts';
import { inTenantTransaction, type BusEvent, type EventPosition, type Kysely, type Transaction } from '@catalog/platform';
import type { CatalogReader } from '../integration/catalog-client.js';
import { deleteEntityTitles, recordRelation, relationsOfEntity, writeEntityTitles, type RelationFacts } from '../persistence/relations.js';
import type { LibraryDb } from '../persistence/tables.js';
import { recordTrackEvents, type TrackEvent } from '../persistence/track-events.js';
import { lockTracksOf } from '../persistence/tracks.js';

/** What applying relation events reads with and writes to. */
export interface RelationProjectionDeps {
  db: Kysely<LibraryDb>;
  catalog: CatalogReader;
}

/** What a relation event says, or null for an event of another kind. */
export function relationFactsOf(event: BusEvent): RelationFacts | null {
  if (event.resourceKind !== 'relation' || event.resourceId === null) return null;
  const { type, sourceId, targetId } = event.data as { type: RelationType; sourceId: string; targetId: string };
  return { relationId: event.resourceId, type, sourceId, targetId, deleted: event.type === 'relation.deleted' };
}

/**
 * Applies the relation events among events of one tenant that belong to no entity's lane (in
 * stream order; decision 0136): the ends of created relations are read from the catalog first
 * (outside any transaction), then one transaction records each event and adds the titles of ends
 * the library has none of yet. Events of other kinds are left alone. False when there was none.
 */
export async function applyRelationEvents(
  deps: RelationProjectionDeps,
  items: ReadonlyArray<{ event: BusEvent; position: EventPosition }>,
): Promise<boolean> {
  const facts = items.flatMap(({ event }) => {
    const f = relationFactsOf(event);
    return f ? [{ tenantId: event.tenantId, ...f }] : [];
  });
  const tenantId = facts[0]?.tenantId;
  if (tenantId === undefined) return false;
  if (facts.some((f) => f.tenantId !== tenantId)) throw new Error('relation events applied together must be of one tenant');
  const ends = [...new Set(facts.filter((f) => !f.deleted).flatMap((f) => [f.sourceId, f.targetId]))];
  const entities = ends.length > 0 ? await deps.catalog.entities(tenantId, ends) : new Map();
  await inTenantTransaction(deps.db, tenantId, async (trx) => {
    await recordRelations(trx, tenantId, facts);
    const titles = [...entities.values()].map((entity) => ({ entityId: entity.id, title: entity.title }));
    await writeEntityTitles(trx, tenantId, titles, 'missing');
  });
  return true;
}

/**
 * The rebuild's part (decision 0136): adds the relations the catalog lists of an entity (those it
 * is the source of, and its symmetric ones) that the library has no row of. A relation it has,
 * deleted or not, stays as its events left it: a deletion applied meanwhile is never undone. The
 * tracks of the ends of those added get their `track.updated` (decision 0142).
 */
export async function restoreRelations(deps: RelationProjectionDeps, tenantId: string, entityId: string): Promise<void> {
  const listed = await deps.catalog.relations(tenantId, entityId);
  if (listed.length === 0) return;
  const facts = listed.map((r) => ({ relationId: r.id, type: r.type, sourceId: r.sourceId, targetId: r.targetId, deleted: false }));
  await inTenantTransaction(deps.db, tenantId, (trx) => recordRelations(trx, tenantId, facts));
}

/**
 * Records relation facts (in order) and, for each end that is a track of the library and whose
 * relations changed, one `track.updated` naming `relations` (decision 0142). The ends' tracks are
 * locked first, in entity order, as a refresh locks them before the titles.
 */
async function recordRelations(trx: Transaction<LibraryDb>, tenantId: string, facts: readonly RelationFacts[]): Promise<void> {
  const tracks = await lockTracksOf(trx, tenantId, [...new Set(facts.flatMap((f) => [f.sourceId, f.targetId]))]);
  const changed = new Set<string>();
  for (const f of facts) {
    if (await recordRelation(trx, tenantId, f)) [f.sourceId, f.targetId].forEach((id) => changed.add(id));
  }
  const events = [...tracks]
    .filter(([entityId]) => changed.has(entityId))
    .map(([entityId, dmrn]): TrackEvent => ({ type: 'track.updated', resourceId: entityId, dmrn, data: { changedFields: ['relations'] } }));
  await recordTrackEvents(trx, tenantId, events);
}

/** The relations a track shows (the first MAX_TRACK_RELATIONS), each seen from its entity, and whether it has more. */
export async function trackRelations(
  db: Kysely<LibraryDb>,
  tenantId: string,
  entityId: string,
): Promise<{ relations: TrackRelation[]; hasMoreRelations: boolean }> {
  const rows = await relationsOfEntity(db, tenantId, entityId, MAX_TRACK_RELATIONS + 1);
  const relations = rows.slice(0, MAX_TRACK_RELATIONS).map((row) => {
    const outgoing = row.source_id === entityId;
    return {
      relationId: row.relation_id,
      type: row.type,
      direction: SYMMETRIC_RELATION_TYPES.includes(row.type) ? 'symmetric' : outgoing ? 'outgoing' : 'incoming',
      entityId: outgoing ? row.target_id : row.source_id,
      title: row.title,
    } satisfies TrackRelation;
  });
  return { relations, hasMoreRelations: rows.length > MAX_TRACK_RELATIONS };
}

/**
 * Keeps the titles of refreshed entities (decision 0136), in the transaction of their refresh: the
 * title each refresh read replaces the stored one; a deleted entity's is forgotten.
 */
export async function keepEntityTitles(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  states: ReadonlyArray<{ entityId: string; entity: { title: string } | null }>,
): Promise<void> {
  const titles = states.flatMap((s) => (s.entity ? [{ entityId: s.entityId, title: s.entity.title }] : []));
  await writeEntityTitles(trx, tenantId, titles, 'replace');
  await deleteEntityTitles(
    trx,
    tenantId,
    states.filter((s) => s.entity === null).map((s) => s.entityId),
  );
}
