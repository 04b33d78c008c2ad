import { sql, type Kysely } from 'kysely';
import type { EntityRow } from '../../persistence/entities.js';
import type { CatalogDb } from '../../persistence/tables.js';

/** The entity's primary AUDIO version while its file is ONLINE (columns null otherwise). */
export interface PrimaryAudioColumns {
  pav_id: string | null;
  pav_label: string | null;
  pav_version_type: string | null;
  pav_duration_ms: number | null;
  pav_asset_id: string | null;
}

export type EntityViewRow = EntityRow & PrimaryAudioColumns;

/**
 * Entities of the tenant with their primary online audio version, in one query: a lateral join
 * that finds at most one row per entity (the partial unique index allows one primary per kind).
 */
function entityViews(db: Kysely<CatalogDb>, tenantId: string) {
  return db
    .selectFrom('entities as e')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('versions as v')
          .innerJoin('asset_states as a', (join) => join.onRef('a.tenant_id', '=', 'v.tenant_id').onRef('a.asset_id', '=', 'v.asset_id'))
          .select([
            'v.id as pav_id',
            'v.label as pav_label',
            'v.version_type as pav_version_type',
            'a.duration_ms as pav_duration_ms',
            'v.asset_id as pav_asset_id',
          ])
          .whereRef('v.tenant_id', '=', 'e.tenant_id')
          .whereRef('v.entity_id', '=', 'e.id')
          .where('v.kind', '=', 'AUDIO')
          .where('v.is_primary', '=', true)
          .where('a.status', '=', 'ONLINE')
          .as('pav'),
      (join) => join.onTrue(),
    )
    .selectAll('e')
    .select(['pav.pav_id', 'pav.pav_label', 'pav.pav_version_type', 'pav.pav_duration_ms', 'pav.pav_asset_id'])
    .where('e.tenant_id', '=', tenantId);
}

/** One entity of the tenant with its primary online audio version. */
export function findEntityView(db: Kysely<CatalogDb>, tenantId: string, id: string): Promise<EntityViewRow | undefined> {
  return entityViews(db, tenantId).where('e.id', '=', id).executeTakeFirst() as Promise<EntityViewRow | undefined>;
}

/** Entities of the tenant by id, with their primary online audio versions (in no order; ids it has not, left out). */
export function findEntityViews(db: Kysely<CatalogDb>, tenantId: string, ids: readonly string[]): Promise<EntityViewRow[]> {
  // One array parameter: the statement's text stays the same for any number of ids.
  return entityViews(db, tenantId)
    .where(sql<boolean>`e.id = any(${[...ids]}::uuid[])`)
    .execute() as Promise<EntityViewRow[]>;
}

/** Up to `limit` entities with an id above `afterId`, by id ascending (the listing's keyset). */
export function listEntityViews(
  db: Kysely<CatalogDb>,
  tenantId: string,
  page: { limit: number; afterId?: string | undefined; type?: string | undefined },
): Promise<EntityViewRow[]> {
  let query = entityViews(db, tenantId);
  if (page.type !== undefined) query = query.where('e.type', '=', page.type);
  if (page.afterId !== undefined) query = query.where('e.id', '>', page.afterId);
  return query.orderBy('e.id', 'asc').limit(page.limit).execute() as Promise<EntityViewRow[]>;
}
