import { notFound, type Transaction } from '@catalog/platform';
import { findEntity, type EntityRow } from '../persistence/entities.js';
import type { CatalogDb } from '../persistence/tables.js';

/** Locks the entity row: every write of an entity's versions takes turns on it. 404 when the tenant has no such entity. */
export async function lockEntity(trx: Transaction<CatalogDb>, tenantId: string, entityId: string): Promise<EntityRow> {
  const entity = await findEntity(trx, tenantId, entityId, { forUpdate: true });
  if (!entity) throw notFound('entity');
  return entity;
}
