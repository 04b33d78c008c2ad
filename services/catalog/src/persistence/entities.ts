import { sql, type Selectable, type Kysely } from 'kysely';
import type { CatalogDb, EntitiesTable } from './tables.js';

/**
 * Queries of `catalog.entities`. Each runs in a tenant context (`inTenantTransaction` or `inTenantScope`, so
 * row-level security applies) and filters by `tenant_id` as well.
 */
export type EntityRow = Selectable<EntitiesTable>;

/** The partial unique index that keeps a DMRN on at most one entity of a tenant. */
export const ENTITY_DMRN_UNIQUE_INDEX = 'entities_tenant_dmrn_key';

export interface NewEntityRow {
  id: string;
  tenantId: string;
  type: string;
  title: string;
  artist: string | null;
  dmrn: string | null;
}

export type EntityChanges = Partial<Pick<EntityRow, 'type' | 'title' | 'artist' | 'dmrn'>>;

/** The INSERT of entities, returning their rows; run inside a statement that records their events. */
export function insertEntitiesQuery(db: Kysely<CatalogDb>, rows: NewEntityRow[]) {
  return db
    .insertInto('entities')
    .values(
      rows.map((row) => ({ id: row.id, tenant_id: row.tenantId, type: row.type, title: row.title, artist: row.artist, dmrn: row.dmrn })),
    )
    .returningAll();
}

/** One entity of the tenant; `forUpdate` locks its row until the transaction ends. */
export function findEntity(
  db: Kysely<CatalogDb>,
  tenantId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<EntityRow | undefined> {
  let query = db.selectFrom('entities').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** An entity of the tenant that holds one of the given DMRNs, if any. */
export function findDmrnHolder(
  db: Kysely<CatalogDb>,
  tenantId: string,
  dmrns: string[],
): Promise<{ id: string; dmrn: string } | undefined> {
  return db
    .selectFrom('entities')
    .select(['id', 'dmrn'])
    .where('tenant_id', '=', tenantId)
    .where('dmrn', 'in', dmrns)
    .limit(1)
    .executeTakeFirst()
    .then((row) => (row ? { id: row.id, dmrn: row.dmrn! } : undefined));
}

/**
 * Writes `changes` and moves `updated_at` to the time of the write (not of the transaction
 * start); returns the row.
 */
export function updateEntityRow(db: Kysely<CatalogDb>, tenantId: string, id: string, changes: EntityChanges): Promise<EntityRow> {
  return db
    .updateTable('entities')
    .set({ ...changes, updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function deleteEntityRow(db: Kysely<CatalogDb>, tenantId: string, id: string): Promise<EntityRow | undefined> {
  return db.deleteFrom('entities').where('tenant_id', '=', tenantId).where('id', '=', id).returningAll().executeTakeFirst();
}
