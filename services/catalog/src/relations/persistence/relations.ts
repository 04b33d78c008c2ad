import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { SYMMETRIC_RELATION_TYPES, type RelationAttributes, type RelationType } from '@catalog/contracts';
import type { CatalogDb, RelationsTable } from '../../persistence/tables.js';

/**
 * Queries of `catalog.relations` (decision 0136). Each runs in a tenant context (row-level
 * security applies) and filters by `tenant_id` as well.
 */
export type RelationRow = Selectable<RelationsTable>;

export interface NewRelationRow {
  id: string;
  tenantId: string;
  type: RelationType;
  sourceId: string;
  targetId: string;
  attributes: RelationAttributes;
}

const symmetric = (type: RelationType): boolean => SYMMETRIC_RELATION_TYPES.includes(type);

/**
 * Locks the rows of the given entities of the tenant in `FOR SHARE` mode (in id order) until the
 * transaction ends: a relation's ends cannot be deleted while it is written, and a deletion
 * already under way is waited for. Returns the ids found.
 */
export async function shareLockEntities(trx: Transaction<CatalogDb>, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await trx
    .selectFrom('entities')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forShare()
    .execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * Makes the relation writes of one group of acyclic types of the tenant take turns until the
 * transaction ends (a transaction-scoped advisory lock): the cycle check of each sees every
 * relation committed before it, so two requests that would close a cycle together cannot both pass.
 */
export async function lockRelationGroup(trx: Transaction<CatalogDb>, tenantId: string, group: readonly RelationType[]): Promise<void> {
  const key = `catalog.relations:${tenantId}:${[...group].sort().join(',')}`;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/**
 * Whether a relation `sourceId` → `targetId` of the group would close a cycle: the source is
 * reached from the target by following the group's relations (one recursive query).
 */
export async function closesCycle(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  group: readonly RelationType[],
  sourceId: string,
  targetId: string,
): Promise<boolean> {
  const types = [...group];
  const { rows } = await sql<{ cycle: boolean }>`
    with recursive reach(id) as (
      select target_id from catalog.relations
       where tenant_id = ${tenantId} and source_id = ${targetId} and type = any(${types}::text[])
      union
      select r.target_id from catalog.relations r join reach on r.source_id = reach.id
       where r.tenant_id = ${tenantId} and r.type = any(${types}::text[])
    )
    select exists (select 1 from reach where id = ${sourceId}) as cycle`.execute(trx);
  return rows[0]?.cycle === true;
}

/** The relation of that type between the two (of a symmetric type: either way), if any. */
export function findSameRelation(
  db: Kysely<CatalogDb>,
  tenantId: string,
  relation: Pick<NewRelationRow, 'type' | 'sourceId' | 'targetId'>,
): Promise<RelationRow | undefined> {
  const { type, sourceId, targetId } = relation;
  return db
    .selectFrom('relations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('type', '=', type)
    .where((eb) => {
      const forward = eb.and([eb('source_id', '=', sourceId), eb('target_id', '=', targetId)]);
      return symmetric(type) ? eb.or([forward, eb.and([eb('source_id', '=', targetId), eb('target_id', '=', sourceId)])]) : forward;
    })
    .executeTakeFirst();
}

/** Inserts a relation; undefined when the same one exists already (a unique index refused it). */
export function insertRelation(db: Kysely<CatalogDb>, row: NewRelationRow): Promise<RelationRow | undefined> {
  return db
    .insertInto('relations')
    .values({
      id: row.id,
      tenant_id: row.tenantId,
      type: row.type,
      source_id: row.sourceId,
      target_id: row.targetId,
      attributes: JSON.stringify(row.attributes),
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export interface RelationFilter {
  entityId: string;
  direction: 'outgoing' | 'incoming' | 'both';
  type?: RelationType | undefined;
  afterId?: string | undefined;
  limit: number;
}

/**
 * A page of an entity's relations by id: those it is the source of (outgoing), the target of
 * (incoming) or either (both); a symmetric relation under each direction.
 */
export function listRelationRows(db: Kysely<CatalogDb>, tenantId: string, filter: RelationFilter): Promise<RelationRow[]> {
  const { entityId, direction } = filter;
  let query = db
    .selectFrom('relations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => {
      const asSource = eb('source_id', '=', entityId);
      const asTarget = eb('target_id', '=', entityId);
      const symmetricTypes = eb('type', 'in', [...SYMMETRIC_RELATION_TYPES]);
      if (direction === 'outgoing') return eb.or([asSource, eb.and([symmetricTypes, asTarget])]);
      if (direction === 'incoming') return eb.or([asTarget, eb.and([symmetricTypes, asSource])]);
      return eb.or([asSource, asTarget]);
    });
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
  return query.orderBy('id').limit(filter.limit).execute();
}

/** Deletes one relation the entity is an end of; returns it, or undefined when there is none. */
export function deleteRelationRow(
  db: Kysely<CatalogDb>,
  tenantId: string,
  entityId: string,
  relationId: string,
): Promise<RelationRow | undefined> {
  return db
    .deleteFrom('relations')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', relationId)
    .where((eb) => eb.or([eb('source_id', '=', entityId), eb('target_id', '=', entityId)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Deletes every relation the entity is an end of, returning them by id. The rows are locked in
 * id order first, so two entities deleted at once that share relations never deadlock; a relation
 * another transaction deleted meanwhile is not returned (its event is that transaction's).
 */
export function deleteRelationRowsOf(db: Kysely<CatalogDb>, tenantId: string, entityId: string): Promise<RelationRow[]> {
  return db
    .deleteFrom('relations')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('relations')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where((w) => w.or([w('source_id', '=', entityId), w('target_id', '=', entityId)]))
        .orderBy('id')
        .forUpdate(),
    )
    .returningAll()
    .execute()
    .then((rows) => rows.sort((a, b) => a.id.localeCompare(b.id)));
}
