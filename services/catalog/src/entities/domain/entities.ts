import type { CreateEntityBody, EntitiesRead, Entity, EntityBatch, UpdateEntityBody } from '@catalog/contracts';
import {
  afterId,
  badRequest,
  conflict,
  executeWithEvents,
  idPage,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  outboxFor,
  type AppError,
  type CallContext,
  type Kysely,
  type OutboxEvent,
} from '@catalog/platform';
import {
  deleteEntityRow,
  ENTITY_DMRN_UNIQUE_INDEX,
  findDmrnHolder,
  findEntity,
  insertEntitiesQuery,
  updateEntityRow,
  type NewEntityRow,
} from '../../persistence/entities.js';
import { patchEntity } from '../persistence/entity-patch.js';
import { findEntityView, findEntityViews, listEntityViews } from '../persistence/entity-views.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { listVersionsOfEntity } from '../../versions/persistence/versions.js';
import { isUniqueViolation } from '../../persistence/unique-violation.js';

import { removeAssignmentsOfEntity } from '../../integrations/domain/assignment-cascades.js';
import { entityView } from './entity-view.js';
import { removeEntityFromMolecules } from '../../molecules/domain/molecule-cascade.js';
import { deleteRelationsOfEntity } from '../../relations/domain/relations.js';

export interface EntityDeps {
  db: Kysely<CatalogDb>;
}

const DEFAULT_PAGE_SIZE = 50;

export interface EntityPage {
  entities: Entity[];
  nextCursor: string | null;
  hasMore: boolean;
}

const entityNotFound = (): AppError => notFound('entity');

/**
 * Runs a write that may give entities DMRNs. When the tenant already has one of them on another
 * entity, the unique index refuses the write, the statement rolls back, and the caller gets 409
 * dmrn_in_use naming the DMRN and the entity that holds it.
 */
async function guardDmrn<T>(deps: EntityDeps, call: CallContext, dmrns: string[], write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (dmrns.length === 0 || !isUniqueViolation(error, ENTITY_DMRN_UNIQUE_INDEX)) throw error;
    const holder = await inTenantScope(deps.db, call.tenantId, (db) => findDmrnHolder(db, call.tenantId, dmrns));
    const details = holder ? { dmrn: holder.dmrn, entityId: holder.id } : dmrns.length === 1 ? { dmrn: dmrns[0] } : {};
    throw conflict('dmrn_in_use', 'this DMRN is already attached to another entity', details);
  }
}

/** A new entity: its row and its `entity.created` event; both are known before the insert. */
export interface NewEntity {
  row: NewEntityRow;
  event: OutboxEvent<'entity.created'>;
}

/** The new row and its `entity.created` event; both are known before the insert. */
export function newEntity(call: Pick<CallContext, 'tenantId'>, input: CreateEntityBody): NewEntity {
  const dmrn = input.externalReferences?.dmrn ?? null;
  const id = newId();
  return {
    row: { id, tenantId: call.tenantId, type: input.type, title: input.title, artist: input.artist ?? null, dmrn },
    event: { type: 'entity.created', resourceId: id, dmrn, data: { entityType: input.type } },
  };
}

/**
 * Inserts entities and records their `entity.created` events in one statement (one round trip,
 * atomic: all of them or none). The events share `batchId` (a new one unless given). Returns the
 * rows in input order.
 */
async function insertEntities(deps: EntityDeps, call: CallContext, inputs: CreateEntityBody[], batchId?: string): Promise<Entity[]> {
  const created = inputs.map((input) => newEntity(call, input));
  const dmrns = created.flatMap(({ row }) => (row.dmrn === null ? [] : [row.dmrn]));
  const context = { tenantId: call.tenantId, sourceSystem: call.sourceSystem };
  const rows = await guardDmrn(deps, call, dmrns, () =>
    inTenantScope(deps.db, call.tenantId, (db) =>
      executeWithEvents(
        db,
        'catalog',
        context,
        insertEntitiesQuery(
          db,
          created.map(({ row }) => row),
        ),
        created.map(({ event }) => event),
        batchId,
      ),
    ),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return created.map(({ row }) => entityView(byId.get(row.id)!));
}

export async function createEntity(deps: EntityDeps, call: CallContext, input: CreateEntityBody): Promise<Entity> {
  const [entity] = await insertEntities(deps, call, [input]);
  return entity!;
}

/**
 * Creates several entities at once (decision 0007): all or none, their events in one
 * transaction with one batch id, which the answer carries. Two entities of one batch may not
 * claim the same DMRN (400 duplicate_dmrn, before anything is written).
 */
export async function createEntities(deps: EntityDeps, call: CallContext, inputs: CreateEntityBody[]): Promise<EntityBatch> {
  const firstIndexOf = new Map<string, number>();
  inputs.forEach((input, index) => {
    const dmrn = input.externalReferences?.dmrn;
    if (dmrn === undefined) return;
    const first = firstIndexOf.get(dmrn);
    if (first !== undefined) {
      throw badRequest('duplicate_dmrn', 'two entities of the batch claim the same DMRN', { dmrn, indexes: [first, index] });
    }
    firstIndexOf.set(dmrn, index);
  });
  const batchId = newId();
  return { batchId, entities: await insertEntities(deps, call, inputs, batchId) };
}

/**
 * A page of the tenant's entities by id: at most `limit`, and no more than fit `maxBytes` (the bus
 * reply's budget, decision 0052): a page that ends early says `hasMore` with its cursor.
 */
export async function listEntities(
  deps: EntityDeps,
  call: CallContext,
  query: { limit?: number | undefined; after?: string | undefined; type?: string | undefined },
  maxBytes: number,
): Promise<EntityPage> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await inTenantScope(deps.db, call.tenantId, (db) =>
    listEntityViews(db, call.tenantId, { limit: limit + 1, afterId: afterId(query.after), type: query.type }),
  );
  const { items, nextCursor, hasMore } = idPage(rows.map(entityView), limit, maxBytes, (entity) => entity.id);
  return { entities: items, nextCursor, hasMore };
}

export async function getEntity(deps: EntityDeps, call: CallContext, id: string): Promise<Entity> {
  const row = await inTenantScope(deps.db, call.tenantId, (db) => findEntityView(db, call.tenantId, id));
  if (!row) throw entityNotFound();
  return entityView(row);
}

/**
 * Several entities of the tenant (internal `readEntities`, the library's projection, decision
 * 0111): those found in the order asked, and the ids the tenant has no entity of.
 */
export async function readEntities(deps: EntityDeps, call: CallContext, ids: readonly string[]): Promise<EntitiesRead> {
  const rows = await inTenantScope(deps.db, call.tenantId, (db) => findEntityViews(db, call.tenantId, ids));
  const found = new Map(rows.map((row) => [row.id, entityView(row)]));
  return {
    entities: ids.flatMap((id) => found.get(id) ?? []),
    missing: ids.filter((id) => !found.has(id)),
  };
}

/**
 * Applies a PATCH in one statement (decision 0111): the row is locked first, so concurrent writes
 * of one entity take turns and each compares against the state the previous one left; the change
 * and its `entity.updated` event commit together. A PATCH that changes nothing writes nothing: no
 * event, and `updatedAt` stays.
 */
export async function updateEntity(deps: EntityDeps, call: CallContext, id: string, patch: UpdateEntityBody): Promise<Entity> {
  const context = { tenantId: call.tenantId, sourceSystem: call.sourceSystem };
  const row = await inTenantScope(deps.db, call.tenantId, (db) => patchEntity(db, context, id, patch));
  if (!row) throw entityNotFound();
  return entityView(row);
}

/**
 * Deletes the entity for good, with its versions (version.deleted, reason entity_deleted, for each;
 * the asset service releases their files when it reads them). The events carry the DMRN it had so
 * consumers can match them. Its relations, both directions, go first (relation.deleted each).
 * Its elements leave every molecule (molecule.updated; molecule.deleted for one left empty, 0137).
 */
export async function deleteEntity(deps: EntityDeps, call: CallContext, id: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const current = await findEntity(trx, call.tenantId, id, { forUpdate: true });
    if (!current) throw entityNotFound();
    const events = outboxFor(trx, 'catalog', call);
    await deleteRelationsOfEntity(trx, call, id);
    await removeEntityFromMolecules(trx, events, call.tenantId, id);
    await removeAssignmentsOfEntity(trx, events, current);
    for (const version of await listVersionsOfEntity(trx, call.tenantId, id)) {
      await events.record({
        type: 'version.deleted',
        resourceId: version.id,
        dmrn: current.dmrn,
        data: { entityId: id, kind: version.kind, assetId: version.asset_id, reason: 'entity_deleted' },
      });
    }
    const row = await deleteEntityRow(trx, call.tenantId, id);
    if (!row) throw entityNotFound();
    await events.record({ type: 'entity.deleted', resourceId: row.id, dmrn: row.dmrn, data: {} });
  });
}

/** The entity as the API shows it, read in the transaction that just wrote it. */
async function currentView(db: Kysely<CatalogDb>, tenantId: string, id: string): Promise<Entity> {
  const row = await findEntityView(db, tenantId, id);
  if (!row) throw entityNotFound();
  return entityView(row);
}

/**
 * Attaches a DMRN. Attaching the value already attached changes nothing and records nothing;
 * another value replaces the current one (entity.updated, changedFields ["externalReferences"]).
 */
export async function attachDmrn(deps: EntityDeps, call: CallContext, id: string, value: string): Promise<Entity> {
  return guardDmrn(deps, call, [value], () =>
    inTenantTransaction(deps.db, call.tenantId, async (trx) => {
      const current = await findEntity(trx, call.tenantId, id, { forUpdate: true });
      if (!current) throw entityNotFound();
      if (current.dmrn === value) return currentView(trx, call.tenantId, id);
      const row = await updateEntityRow(trx, call.tenantId, id, { dmrn: value });
      await outboxFor(trx, 'catalog', call).record({
        type: 'entity.updated',
        resourceId: row.id,
        dmrn: row.dmrn,
        data: { changedFields: ['externalReferences'] },
      });
      return currentView(trx, call.tenantId, id);
    }),
  );
}

/** Removes the DMRN, if there is one; the event carries the removed value. */
export async function detachDmrn(deps: EntityDeps, call: CallContext, id: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const current = await findEntity(trx, call.tenantId, id, { forUpdate: true });
    if (!current) throw entityNotFound();
    if (current.dmrn === null) return;
    await updateEntityRow(trx, call.tenantId, id, { dmrn: null });
    await outboxFor(trx, 'catalog', call).record({
      type: 'entity.updated',
      resourceId: current.id,
      dmrn: current.dmrn,
      data: { changedFields: ['externalReferences'] },
    });
  });
}
