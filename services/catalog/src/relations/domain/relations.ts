import {
  ACYCLIC_RELATION_GROUPS,
  SYMMETRIC_RELATION_TYPES,
  type CreateRelationBody,
  type ListRelationsQuery,
  type Relation,
  type RelationList,
  type RelationType,
} from '@catalog/contracts';
import {
  afterId,
  badRequest,
  conflict,
  idPage,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  outboxFor,
  type CallContext,
  type Kysely,
  type Transaction,
} from '@catalog/platform';
import { findEntity } from '../../persistence/entities.js';
import {
  closesCycle,
  deleteRelationRow,
  deleteRelationRowsOf,
  findSameRelation,
  insertRelation,
  listRelationRows,
  lockRelationGroup,
  shareLockEntities,
  type RelationRow,
} from '../persistence/relations.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * Relations between entities (decision 0136): typed and directed, the entity of the path their
 * source; each write commits with its `relation.created` / `relation.deleted` event.
 */
export interface RelationDeps {
  db: Kysely<CatalogDb>;
}

const DEFAULT_PAGE_SIZE = 50;

/** The relation as the API shows it, seen from `entityId` (one of its ends). */
export function relationView(row: RelationRow, entityId: string): Relation {
  return {
    id: row.id,
    type: row.type,
    sourceId: row.source_id,
    targetId: row.target_id,
    direction: SYMMETRIC_RELATION_TYPES.includes(row.type) ? 'symmetric' : row.source_id === entityId ? 'outgoing' : 'incoming',
    attributes: row.attributes,
    createdAt: row.created_at.toISOString(),
  };
}

const acyclicGroupOf = (type: RelationType): readonly RelationType[] | undefined => ACYCLIC_RELATION_GROUPS.find((g) => g.includes(type));

const eventData = (row: RelationRow) => ({ type: row.type, sourceId: row.source_id, targetId: row.target_id });

/** The answer of `createRelation`: the relation, and whether this request created it (201) or found it (200). */
export interface CreatedRelation {
  relation: Relation;
  created: boolean;
}

/**
 * Relates `sourceId` to `body.targetId`. Both entities are share-locked first (404 when the
 * tenant has either not: another tenant's id is a missing one), so neither is deleted meanwhile.
 * The same type to the same target (of a symmetric type, either way) answers the existing
 * relation, unchanged. A type of an acyclic group takes the group's tenant lock, then refuses a
 * relation that would close a cycle (409 relation_cycle): two requests that would close one
 * together take turns, and the second sees the first's relation.
 */
export async function createRelation(
  deps: RelationDeps,
  call: CallContext,
  sourceId: string,
  body: CreateRelationBody,
): Promise<CreatedRelation> {
  const { targetId } = body;
  if (targetId === sourceId) {
    throw badRequest('self_relation', 'an entity cannot be related to itself', { targetId: body.targetId });
  }
  const wanted = { type: body.type, sourceId, targetId };
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const found = await shareLockEntities(trx, call.tenantId, [sourceId, targetId]);
    if (!found.has(sourceId) || !found.has(targetId)) throw notFound('entity');
    const existing = await findSameRelation(trx, call.tenantId, wanted);
    if (existing) return { relation: relationView(existing, sourceId), created: false };
    const group = acyclicGroupOf(body.type);
    if (group) {
      await lockRelationGroup(trx, call.tenantId, group);
      if (await closesCycle(trx, call.tenantId, group, sourceId, targetId)) {
        throw conflict('relation_cycle', `this ${body.type} relation would close a cycle of ${group.join('/')} relations`, {
          type: body.type,
          targetId,
        });
      }
    }
    return insertNew(trx, call, { id: newId(), tenantId: call.tenantId, ...wanted, attributes: body.attributes ?? {} });
  });
}

/** Inserts the relation with its event; a concurrent identical request's relation, committed first, is answered instead. */
async function insertNew(
  trx: Transaction<CatalogDb>,
  call: CallContext,
  row: Parameters<typeof insertRelation>[1],
): Promise<CreatedRelation> {
  const inserted = await insertRelation(trx, row);
  if (!inserted) {
    const existing = await findSameRelation(trx, call.tenantId, row);
    if (!existing) throw new Error('a relation refused as a duplicate was not found');
    return { relation: relationView(existing, row.sourceId), created: false };
  }
  await outboxFor(trx, 'catalog', call).record({
    type: 'relation.created',
    resourceId: inserted.id,
    dmrn: null,
    data: eventData(inserted),
  });
  return { relation: relationView(inserted, row.sourceId), created: true };
}

/**
 * A page of the entity's relations by id (at most `limit`, and no more than fit `maxBytes`, the
 * bus reply's budget); 404 when the tenant has no such entity.
 */
export async function listRelations(
  deps: RelationDeps,
  call: CallContext,
  entityId: string,
  query: ListRelationsQuery,
  maxBytes: number,
): Promise<RelationList> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  return inTenantScope(deps.db, call.tenantId, async (db) => {
    const filter = {
      entityId,
      direction: query.direction ?? 'both',
      type: query.type,
      afterId: afterId(query.after),
      limit: limit + 1,
    };
    const rows = await listRelationRows(db, call.tenantId, filter);
    if (rows.length === 0 && !(await findEntity(db, call.tenantId, entityId))) throw notFound('entity');
    const page = idPage(
      rows.map((row) => relationView(row, entityId)),
      limit,
      maxBytes,
      (relation) => relation.id,
    );
    return { relations: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
  });
}

/**
 * Deletes a relation the entity is an end of, with its `relation.deleted` event. 404 `entity`
 * when the tenant has no such entity, else 404 `relation` when the entity has no such relation.
 */
export async function deleteRelation(deps: RelationDeps, call: CallContext, entityId: string, relationId: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const row = await deleteRelationRow(trx, call.tenantId, entityId, relationId);
    if (!row) {
      if (!(await findEntity(trx, call.tenantId, entityId))) throw notFound('entity');
      throw notFound('relation');
    }
    await outboxFor(trx, 'catalog', call).record({ type: 'relation.deleted', resourceId: row.id, dmrn: null, data: eventData(row) });
  });
}

/**
 * Deletes every relation of an entity (both directions), each with its `relation.deleted` event,
 * in the transaction that deletes the entity (which holds the entity's row locked).
 */
export async function deleteRelationsOfEntity(
  trx: Transaction<CatalogDb>,
  call: Pick<CallContext, 'tenantId' | 'sourceSystem'>,
  entityId: string,
): Promise<void> {
  const events = outboxFor(trx, 'catalog', call);
  for (const row of await deleteRelationRowsOf(trx, call.tenantId, entityId)) {
    await events.record({ type: 'relation.deleted', resourceId: row.id, dmrn: null, data: eventData(row) });
  }
}
