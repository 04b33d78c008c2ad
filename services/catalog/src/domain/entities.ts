import type { CreateEntityBody, Entity, UpdateEntityBody } from '@catalog/contracts';
import { conflict, executeWithEvents, inTenantScope, inTenantTransaction, newId, notFound, type AppError, type CallContext, type Kysely } from '@catalog/platform';
import {
  deleteEntityRow,
  ENTITY_DMRN_UNIQUE_INDEX,
  findEntity,
  findEntityIdByDmrn,
  insertEntityQuery,
  updateEntityRow,
} from '../persistence/entities.js';
import { findEntityView, listEntityViews } from '../persistence/entity-views.js';
import type { CatalogDb } from '../persistence/tables.js';
import { listVersionsOfEntity } from '../persistence/versions.js';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import { diffEntityPatch } from './changed-fields.js';
import { entityCursor } from './entity-cursor.js';
import { entityView } from './entity-view.js';
import { catalogEvent, catalogEventsFor } from './events.js';

export interface EntityDeps {
  db: Kysely<CatalogDb>;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface EntityPage {
  entities: Entity[];
  nextCursor: string | null;
  hasMore: boolean;
}

const entityNotFound = (): AppError => notFound('entity');

/**
 * Runs a write that may give an entity a DMRN. When the tenant already has that DMRN on another
 * entity, the unique index refuses the write, the transaction rolls back, and the caller gets
 * 409 dmrn_in_use naming the entity that holds it.
 */
async function guardDmrn<T>(deps: EntityDeps, call: CallContext, dmrn: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (dmrn === null || !isUniqueViolation(error, ENTITY_DMRN_UNIQUE_INDEX)) throw error;
    const holder = await inTenantScope(deps.db, call.tenantId, (db) => findEntityIdByDmrn(db, call.tenantId, dmrn));
    throw conflict('dmrn_in_use', 'this DMRN is already attached to another entity', {
      dmrn,
      ...(holder ? { entityId: holder } : {}),
    });
  }
}

/**
 * Creates an entity and records `entity.created` in one statement (one round trip, atomic): the
 * event's facts are all known before the insert.
 */
export async function createEntity(deps: EntityDeps, call: CallContext, input: CreateEntityBody): Promise<Entity> {
  const dmrn = input.externalReferences?.dmrn ?? null;
  const id = newId();
  const event = catalogEvent('entity.created', { resourceId: id, dmrn, data: { entityType: input.type } });
  return guardDmrn(deps, call, dmrn, () =>
    inTenantScope(deps.db, call.tenantId, async (db) => {
      const write = insertEntityQuery(db, { id, tenantId: call.tenantId, type: input.type, title: input.title, artist: input.artist ?? null, dmrn });
      const [row] = await executeWithEvents(db, 'catalog', { tenantId: call.tenantId, sourceSystem: call.sourceSystem }, write, [event]);
      return entityView(row!);
    }),
  );
}

export async function listEntities(
  deps: EntityDeps,
  call: CallContext,
  query: { limit?: number | undefined; after?: string | undefined; type?: string | undefined },
): Promise<EntityPage> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const afterId = query.after !== undefined ? entityCursor.decode(query.after).id : undefined;
  const rows = await inTenantScope(deps.db, call.tenantId, (db) =>
    listEntityViews(db, call.tenantId, { limit: limit + 1, afterId, type: query.type }),
  );
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    entities: page.map(entityView),
    nextCursor: hasMore && last ? entityCursor.encode({ id: last.id }) : null,
    hasMore,
  };
}

export async function getEntity(deps: EntityDeps, call: CallContext, id: string): Promise<Entity> {
  const row = await inTenantScope(deps.db, call.tenantId, (db) => findEntityView(db, call.tenantId, id));
  if (!row) throw entityNotFound();
  return entityView(row);
}

/**
 * Applies a PATCH. The row is locked first, so concurrent writes of one entity take turns and
 * each compares against the state the previous one left. A PATCH that changes nothing writes
 * nothing: no event, and `updatedAt` stays.
 */
export async function updateEntity(deps: EntityDeps, call: CallContext, id: string, patch: UpdateEntityBody): Promise<Entity> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const current = await findEntity(trx, call.tenantId, id, { forUpdate: true });
    if (!current) throw entityNotFound();
    const { changes, changedFields } = diffEntityPatch(current, patch);
    if (changedFields.length === 0) return currentView(trx, call.tenantId, id);
    const row = await updateEntityRow(trx, call.tenantId, id, changes);
    await catalogEventsFor(trx, call).record('entity.updated', { resourceId: row.id, dmrn: row.dmrn, data: { changedFields } });
    return currentView(trx, call.tenantId, id);
  });
}

/**
 * Deletes the entity for good, with its versions (version.deleted, reason entity_deleted, for each;
 * the asset service releases their files when it reads them). The events carry the DMRN it had so
 * consumers can match them.
 */
export async function deleteEntity(deps: EntityDeps, call: CallContext, id: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const current = await findEntity(trx, call.tenantId, id, { forUpdate: true });
    if (!current) throw entityNotFound();
    const events = catalogEventsFor(trx, call);
    for (const version of await listVersionsOfEntity(trx, call.tenantId, id)) {
      await events.record('version.deleted', {
        resourceId: version.id,
        dmrn: current.dmrn,
        data: { entityId: id, kind: version.kind, assetId: version.asset_id, reason: 'entity_deleted' },
      });
    }
    const row = await deleteEntityRow(trx, call.tenantId, id);
    if (!row) throw entityNotFound();
    await events.record('entity.deleted', { resourceId: row.id, dmrn: row.dmrn, data: {} });
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
  return guardDmrn(deps, call, value, () =>
    inTenantTransaction(deps.db, call.tenantId, async (trx) => {
      const current = await findEntity(trx, call.tenantId, id, { forUpdate: true });
      if (!current) throw entityNotFound();
      if (current.dmrn === value) return currentView(trx, call.tenantId, id);
      const row = await updateEntityRow(trx, call.tenantId, id, { dmrn: value });
      await catalogEventsFor(trx, call).record('entity.updated', {
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
    await catalogEventsFor(trx, call).record('entity.updated', {
      resourceId: current.id,
      dmrn: current.dmrn,
      data: { changedFields: ['externalReferences'] },
    });
  });
}
