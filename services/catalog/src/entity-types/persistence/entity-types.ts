import { sql, type Selectable, type Kysely } from 'kysely';
import type { CatalogDb, EntityTypesTable } from '../../persistence/tables.js';

/**
 * Queries of `catalog.entity_types`. Each runs in a tenant context (`inTenantTransaction` or `inTenantScope`,
 * so row-level security applies) and filters by `tenant_id` as well.
 */
export type EntityTypeRow = Selectable<EntityTypesTable>;

export function listEntityTypeRows(db: Kysely<CatalogDb>, tenantId: string): Promise<EntityTypeRow[]> {
  return db
    .selectFrom('entity_types')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy(sql`name collate "C"`)
    .execute();
}

export function findEntityTypeRow(
  db: Kysely<CatalogDb>,
  tenantId: string,
  name: string,
  options: { forUpdate?: boolean } = {},
): Promise<EntityTypeRow | undefined> {
  let query = db.selectFrom('entity_types').selectAll().where('tenant_id', '=', tenantId).where('name', '=', name);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Inserts the entity type unless the tenant has it already; returns the new row, or undefined. */
export function insertEntityTypeIfAbsent(
  db: Kysely<CatalogDb>,
  row: { tenantId: string; name: string; automaticAnalyses: string[]; cuePointMarkers: boolean },
): Promise<EntityTypeRow | undefined> {
  return db
    .insertInto('entity_types')
    .values({
      tenant_id: row.tenantId,
      name: row.name,
      automatic_analyses: row.automaticAnalyses,
      cue_point_markers: row.cuePointMarkers,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'name']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function countEntityTypes(db: Kysely<CatalogDb>, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('entity_types')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function updateEntityTypeAnalyses(
  db: Kysely<CatalogDb>,
  tenantId: string,
  name: string,
  config: { automaticAnalyses: string[]; cuePointMarkers: boolean },
): Promise<EntityTypeRow> {
  return db
    .updateTable('entity_types')
    .set({
      automatic_analyses: config.automaticAnalyses,
      cue_point_markers: config.cuePointMarkers,
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .returningAll()
    .executeTakeFirstOrThrow();
}
