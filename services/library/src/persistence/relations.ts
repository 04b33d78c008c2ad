import type { RelationType } from '@catalog/contracts';
import { sql, type Kysely, type Transaction } from '@catalog/platform';
import type { LibraryDb } from './tables.js';

/** What a relation event says (decision 0136): the relation, its ends, and whether it was deleted. */
export interface RelationFacts {
  relationId: string;
  type: RelationType;
  sourceId: string;
  targetId: string;
  deleted: boolean;
}

/**
 * Records a relation event: a created relation is added unless the library has it (a repeated
 * event, or one delivered again after its deletion: the row stays, marked deleted); a deleted one
 * is marked deleted, added as deleted if its creation has not been applied yet. True when the
 * relations its ends show changed (a relation added, or one they showed marked deleted).
 */
export async function recordRelation(trx: Transaction<LibraryDb>, tenantId: string, facts: RelationFacts): Promise<boolean> {
  if (facts.deleted) {
    const { rows } = await sql`
      update library.relations set deleted = true
       where tenant_id = ${tenantId}::uuid and relation_id = ${facts.relationId}::uuid and not deleted
      returning relation_id`.execute(trx);
    if (rows.length > 0) return true;
  }
  const { rows } = await sql`
    insert into library.relations (tenant_id, relation_id, type, source_id, target_id, deleted)
    values (${tenantId}::uuid, ${facts.relationId}::uuid, ${facts.type}, ${facts.sourceId}::uuid, ${facts.targetId}::uuid, ${facts.deleted})
    on conflict (tenant_id, relation_id) do nothing
    returning relation_id`.execute(trx);
  return rows.length > 0 && !facts.deleted;
}

export interface EntityTitle {
  entityId: string;
  title: string;
}

/**
 * Writes the titles of entities (each at most once), in entity order: `replace` sets the title an
 * entity's refresh read (the newest), `missing` only adds those the library has none of (what a
 * relation event's read found: an entity's own refresh may have written a newer one meanwhile).
 */
export async function writeEntityTitles(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  titles: readonly EntityTitle[],
  mode: 'replace' | 'missing',
): Promise<void> {
  if (titles.length === 0) return;
  const conflict =
    mode === 'replace' ? sql`do update set title = excluded.title where library.entity_titles.title <> excluded.title` : sql`do nothing`;
  await sql`
    insert into library.entity_titles (tenant_id, entity_id, title)
    select ${tenantId}::uuid, t.entity_id, t.title
      from unnest(${titles.map((t) => t.entityId)}::uuid[], ${titles.map((t) => t.title)}::text[]) as t(entity_id, title)
     order by t.entity_id
    on conflict (tenant_id, entity_id) ${conflict}`.execute(trx);
}

/** Forgets the titles of deleted entities. */
export async function deleteEntityTitles(trx: Transaction<LibraryDb>, tenantId: string, entityIds: readonly string[]): Promise<void> {
  if (entityIds.length === 0) return;
  await trx
    .deleteFrom('entity_titles')
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', sql<string>`any(${[...entityIds]}::uuid[])`)
    .execute();
}

/** A relation of an entity with the other entity's title (null: not read yet). */
export interface RelationOfEntity {
  relation_id: string;
  type: RelationType;
  source_id: string;
  target_id: string;
  title: string | null;
}

/** The first `limit` relations (not deleted) the entity is an end of, by relation id, with the other end's title. */
export async function relationsOfEntity(
  db: Kysely<LibraryDb>,
  tenantId: string,
  entityId: string,
  limit: number,
): Promise<RelationOfEntity[]> {
  const { rows } = await sql<RelationOfEntity>`
    select r.relation_id, r.type, r.source_id, r.target_id, t.title
      from library.relations r
      left join library.entity_titles t
        on t.tenant_id = r.tenant_id
       and t.entity_id = case when r.source_id = ${entityId}::uuid then r.target_id else r.source_id end
     where r.tenant_id = ${tenantId}::uuid and not r.deleted
       and (r.source_id = ${entityId}::uuid or r.target_id = ${entityId}::uuid)
     order by r.relation_id
     limit ${limit}`.execute(db);
  return rows;
}
