import { sql, type Kysely, type Selectable } from 'kysely';
import type { Marker, MoleculeAnchor, MoleculeElementKind } from '@catalog/contracts';
import type { MoleculesTable } from '../../persistence/molecule-tables.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * Queries of `catalog.molecules` and `catalog.molecule_elements` (decision 0137). Each runs in a
 * tenant context (row-level security applies) and filters by `tenant_id` as well. Writes of a
 * molecule lock its row first; writes that add elements lock their entities (FOR KEY SHARE)
 * before that, as the entity deletion locks the entity before the molecules it cascades to.
 */
export type MoleculeRow = Selectable<MoleculesTable>;

/** An element to store, in play order. */
export interface NewElement {
  entityId: string;
  kind: MoleculeElementKind;
  anchor: MoleculeAnchor;
  offsetMs: number;
}

/** A molecule's row with one of its elements and the primary version it resolves to now (one row per element). */
export interface ResolvedElementRow extends MoleculeRow {
  position: number | null;
  entity_id: string | null;
  kind: MoleculeElementKind | null;
  anchor: MoleculeAnchor | null;
  offset_ms: number | null;
  version_id: string | null;
  markers: Marker[] | null;
  duration_ms: number | null;
}

/**
 * Locks the tenant's entities among `ids` against deletion (FOR KEY SHARE, in id order) until the
 * transaction ends; returns the ids found.
 */
export async function lockEntitiesForElements(db: Kysely<CatalogDb>, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('entities')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .forKeyShare()
    .execute();
  return new Set(rows.map((row) => row.id));
}

export function insertMoleculeRow(db: Kysely<CatalogDb>, row: { id: string; tenantId: string; title: string }): Promise<MoleculeRow> {
  return db
    .insertInto('molecules')
    .values({ id: row.id, tenant_id: row.tenantId, title: row.title })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Stores `elements` as the molecule's elements, positions 0, 1, … in the order given. */
export async function insertElements(db: Kysely<CatalogDb>, tenantId: string, moleculeId: string, elements: readonly NewElement[]) {
  await db
    .insertInto('molecule_elements')
    .values(
      elements.map((element, position) => ({
        tenant_id: tenantId,
        molecule_id: moleculeId,
        position,
        entity_id: element.entityId,
        kind: element.kind,
        anchor: element.anchor,
        offset_ms: element.offsetMs,
      })),
    )
    .execute();
}

/** The elements of a molecule in play order, as stored. */
export function selectElements(db: Kysely<CatalogDb>, tenantId: string, moleculeId: string) {
  return db
    .selectFrom('molecule_elements')
    .select(['entity_id', 'kind', 'anchor', 'offset_ms'])
    .where('tenant_id', '=', tenantId)
    .where('molecule_id', '=', moleculeId)
    .orderBy('position')
    .execute();
}

export function deleteElements(db: Kysely<CatalogDb>, tenantId: string, moleculeId: string): Promise<unknown> {
  return db.deleteFrom('molecule_elements').where('tenant_id', '=', tenantId).where('molecule_id', '=', moleculeId).execute();
}

/** One molecule of the tenant; `forUpdate` locks its row until the transaction ends. */
export function findMolecule(
  db: Kysely<CatalogDb>,
  tenantId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<MoleculeRow | undefined> {
  let query = db.selectFrom('molecules').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Sets the title (when given) and moves `updated_at` to the time of the write. */
export function touchMolecule(db: Kysely<CatalogDb>, tenantId: string, id: string, changes: { title?: string }): Promise<MoleculeRow> {
  return db
    .updateTable('molecules')
    .set({ ...changes, updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes the molecule; its elements go with it (cascade). */
export function deleteMoleculeRow(db: Kysely<CatalogDb>, tenantId: string, id: string): Promise<unknown> {
  return db.deleteFrom('molecules').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/**
 * Molecules of the tenant with their elements and what each resolves to now (the primary version
 * of its kind, its markers and its file's duration), in one statement, so one snapshot: one row
 * per element (one row with null element columns for a molecule without elements), by molecule id
 * then position. Either the molecules `ids`, or a page: those after `afterId`, at most `limit`.
 */
export function selectResolvedMolecules(
  db: Kysely<CatalogDb>,
  tenantId: string,
  filter: { ids: readonly string[] } | { afterId?: string | undefined; limit: number },
): Promise<ResolvedElementRow[]> {
  let page = db.selectFrom('molecules').select('id').where('tenant_id', '=', tenantId);
  if ('ids' in filter) page = page.where('id', 'in', [...filter.ids]);
  else {
    if (filter.afterId !== undefined) page = page.where('id', '>', filter.afterId);
    page = page.orderBy('id').limit(filter.limit);
  }
  return db
    .selectFrom('molecules as m')
    .leftJoin('molecule_elements as el', (join) => join.onRef('el.molecule_id', '=', 'm.id').onRef('el.tenant_id', '=', 'm.tenant_id'))
    .leftJoin('versions as v', (join) =>
      join
        .onRef('v.tenant_id', '=', 'el.tenant_id')
        .onRef('v.entity_id', '=', 'el.entity_id')
        .onRef('v.kind', '=', 'el.kind')
        .on('v.is_primary', '=', true),
    )
    .leftJoin('asset_states as a', (join) => join.onRef('a.tenant_id', '=', 'v.tenant_id').onRef('a.asset_id', '=', 'v.asset_id'))
    .selectAll('m')
    .select(['el.position', 'el.entity_id', 'el.kind', 'el.anchor', 'el.offset_ms', 'v.id as version_id', 'v.markers', 'a.duration_ms'])
    .where('m.tenant_id', '=', tenantId)
    .where('m.id', 'in', page)
    .orderBy('m.id')
    .orderBy('el.position')
    .execute() as Promise<ResolvedElementRow[]>;
}

/**
 * Locks, in id order, the tenant's molecules that have elements of `entityId` (the entity
 * deletion's cascade, which holds the entity's lock already); returns their ids.
 */
export async function lockMoleculesOfEntity(db: Kysely<CatalogDb>, tenantId: string, entityId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('molecules as m')
    .select('m.id')
    .where('m.tenant_id', '=', tenantId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('molecule_elements as el')
          .select(sql`1`.as('one'))
          .whereRef('el.molecule_id', '=', 'm.id')
          .where('el.tenant_id', '=', tenantId)
          .where('el.entity_id', '=', entityId),
      ),
    )
    .orderBy('m.id')
    .forUpdate()
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Removes the elements of `entityId` from the molecules `moleculeIds` (locked by the caller);
 * returns per molecule how many it removed and how many are left.
 */
export async function removeEntityElements(
  db: Kysely<CatalogDb>,
  tenantId: string,
  entityId: string,
  moleculeIds: readonly string[],
): Promise<Array<{ moleculeId: string; removed: number; left: number }>> {
  if (moleculeIds.length === 0) return [];
  const removed = await db
    .deleteFrom('molecule_elements')
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', entityId)
    .where('molecule_id', 'in', [...moleculeIds])
    .returning('molecule_id')
    .execute();
  const left = await db
    .selectFrom('molecule_elements')
    .select(['molecule_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('molecule_id', 'in', [...moleculeIds])
    .groupBy('molecule_id')
    .execute();
  const leftBy = new Map(left.map((row) => [row.molecule_id, Number(row.n)]));
  return moleculeIds.map((moleculeId) => ({
    moleculeId,
    removed: removed.filter((row) => row.molecule_id === moleculeId).length,
    left: leftBy.get(moleculeId) ?? 0,
  }));
}
