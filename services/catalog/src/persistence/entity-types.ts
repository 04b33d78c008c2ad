import { sql, type Selectable, type Transaction } from 'kysely';
import type { CatalogDb, EntityTypesTable } from './tables.js';

/**
 * Queries of `catalog.entity_types`. Each takes a transaction opened with `inTenantTransaction`
 * (so row-level security applies) and filters by `tenant_id` as well.
 */
export type EntityTypeRow = Selectable<EntityTypesTable>;

export function listEntityTypeRows(trx: Transaction<CatalogDb>, tenantId: string): Promise<EntityTypeRow[]> {
  return trx
    .selectFrom('entity_types')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy(sql`name collate "C"`)
    .execute();
}

export function findEntityTypeRow(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  name: string,
  options: { forUpdate?: boolean } = {},
): Promise<EntityTypeRow | undefined> {
  let query = trx.selectFrom('entity_types').selectAll().where('tenant_id', '=', tenantId).where('name', '=', name);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Inserts the entity type unless the tenant has it already; returns the new row, or undefined. */
export function insertEntityTypeIfAbsent(
  trx: Transaction<CatalogDb>,
  row: { tenantId: string; name: string; automaticAnalyses: string[] },
): Promise<EntityTypeRow | undefined> {
  return trx
    .insertInto('entity_types')
    .values({ tenant_id: row.tenantId, name: row.name, automatic_analyses: row.automaticAnalyses })
    .onConflict((oc) => oc.columns(['tenant_id', 'name']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateEntityTypeAnalyses(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  name: string,
  automaticAnalyses: string[],
): Promise<EntityTypeRow> {
  return trx
    .updateTable('entity_types')
    .set({ automatic_analyses: automaticAnalyses, updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .returningAll()
    .executeTakeFirstOrThrow();
}
