import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { SyncState } from '@catalog/contracts';
import type { AssignmentsTable } from '../../persistence/integration-tables.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * Queries of `catalog.assignments` (decision 0132). Each runs in a tenant context (row-level
 * security applies) and filters by `tenant_id` as well. Writes of an entity's assignments run
 * after the entity row is locked, like its versions', so a sync report and a primary change take
 * turns; rows locked together are locked in id order.
 */
export type AssignmentRow = Selectable<AssignmentsTable>;

export function findAssignment(
  db: Kysely<CatalogDb>,
  tenantId: string,
  integrationId: string,
  entityId: string,
  options: { forUpdate?: boolean } = {},
): Promise<AssignmentRow | undefined> {
  let query = db
    .selectFrom('assignments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('integration_id', '=', integrationId)
    .where('entity_id', '=', entityId);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The INSERT of an assignment (pending), returning its row; run inside a statement that records its event. */
export function insertAssignmentQuery(
  db: Kysely<CatalogDb>,
  row: { id: string; tenantId: string; integrationId: string; entityId: string },
) {
  return db
    .insertInto('assignments')
    .values({ id: row.id, tenant_id: row.tenantId, integration_id: row.integrationId, entity_id: row.entityId })
    .returningAll();
}

/** A page of an integration's assignments in id order (of one state when given), after `afterId`. */
export function listAssignmentRows(
  db: Kysely<CatalogDb>,
  tenantId: string,
  filter: { integrationId: string; syncState?: SyncState | undefined; afterId?: string | undefined; limit: number },
): Promise<AssignmentRow[]> {
  let query = db.selectFrom('assignments').selectAll().where('tenant_id', '=', tenantId).where('integration_id', '=', filter.integrationId);
  if (filter.syncState !== undefined) query = query.where('sync_state', '=', filter.syncState);
  if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
  return query.orderBy('id').limit(filter.limit).execute();
}

/** Every assignment of an entity, locked in id order until the transaction ends. */
export function lockAssignmentsOfEntity(trx: Transaction<CatalogDb>, tenantId: string, entityId: string): Promise<AssignmentRow[]> {
  return trx
    .selectFrom('assignments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', entityId)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Up to `limit` assignments of an integration after `afterId`, each with its entity's DMRN, locked
 * in id order until the transaction ends.
 */
export function lockAssignmentsOfIntegration(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  integrationId: string,
  page: { afterId?: string | undefined; limit: number },
): Promise<Array<AssignmentRow & { dmrn: string | null }>> {
  let query = trx
    .selectFrom('assignments')
    .selectAll()
    .select((eb) => eb.selectFrom('entities').select('dmrn').whereRef('entities.id', '=', 'assignments.entity_id').as('dmrn'))
    .where('tenant_id', '=', tenantId)
    .where('integration_id', '=', integrationId);
  if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
  return query.orderBy('id').limit(page.limit).forUpdate().execute();
}

/** The DELETE of assignments by id, returning their ids; run inside a statement that records their events. */
export function deleteAssignmentsQuery(db: Kysely<CatalogDb>, tenantId: string, ids: readonly string[]) {
  return db.deleteFrom('assignments').where('tenant_id', '=', tenantId).where('id', 'in', ids).returning('id');
}

/** What a sync report or a primary change writes of an assignment. */
export interface AssignmentWrite {
  syncState: SyncState;
  /** The state changed: `state_changed_at` moves to now. */
  changed: boolean;
  versionIds?: string[];
  externalId?: string | null;
  error: string | null;
  /** The report made it synced: `synced_at` moves to now. */
  synced?: boolean;
}

export function updateAssignments(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  ids: readonly string[],
  write: AssignmentWrite,
): Promise<AssignmentRow[]> {
  return trx
    .updateTable('assignments')
    .set({
      sync_state: write.syncState,
      error: write.error,
      ...(write.changed ? { state_changed_at: sql<Date>`clock_timestamp()` } : {}),
      ...(write.versionIds === undefined ? {} : { version_ids: write.versionIds }),
      ...(write.externalId === undefined ? {} : { external_id: write.externalId }),
      ...(write.synced ? { synced_at: sql<Date>`clock_timestamp()` } : {}),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .returningAll()
    .execute();
}

/** The ids of an entity's primary versions, one per kind that has versions. */
export async function primaryVersionIdsOf(db: Kysely<CatalogDb>, tenantId: string, entityId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('versions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', entityId)
    .where('is_primary', '=', true)
    .orderBy(sql`array_position(array['AUDIO','ARTWORK','VIDEO']::text[], kind)`)
    .execute();
  return rows.map((row) => row.id);
}
