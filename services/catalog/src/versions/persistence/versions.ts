import { sql, type Kysely, type Selectable } from 'kysely';
import type { AssetKind, Marker } from '@catalog/contracts';
import type { CatalogDb, VersionsTable } from '../../persistence/tables.js';

/**
 * Queries of `catalog.versions`. Each runs in a tenant context (row-level security applies) and
 * filters by `tenant_id` as well. Writes of an entity's versions run after the entity row is locked
 * (`findEntity(…, {forUpdate: true})`), so they take turns per entity.
 */
export type VersionRow = Selectable<VersionsTable>;

/** The partial unique index that allows one primary version per (entity, kind). */
export const ONE_PRIMARY_PER_KIND_INDEX = 'versions_one_primary_per_kind';
/** The unique index that makes an asset the file of at most one version. */
export const ONE_VERSION_PER_ASSET_INDEX = 'versions_tenant_asset_key';

/** A version with the facts of its file, as the listing shows it. */
export interface VersionRecord extends VersionRow {
  asset_status: string;
  asset_content_type: string;
  asset_size: string | null;
  asset_duration_ms: number | null;
}

/** Kind order of listings: AUDIO, ARTWORK, VIDEO. */
const KIND_ORDER = sql<number>`array_position(array['AUDIO','ARTWORK','VIDEO']::text[], v.kind)`;

/** A place in the listing's order: after the version `id` of kind `kind`. */
export interface VersionPosition {
  kind: AssetKind;
  id: string;
}

/**
 * Versions of one entity joined with their files' facts, by kind then oldest first (`after` a
 * position and at most `limit` of them when given); one query.
 */
export function selectVersionRecords(
  db: Kysely<CatalogDb>,
  tenantId: string,
  filter: {
    entityId: string;
    kind?: AssetKind | undefined;
    id?: string | undefined;
    after?: VersionPosition | undefined;
    limit?: number | undefined;
  },
): Promise<VersionRecord[]> {
  let query = db
    .selectFrom('versions as v')
    .innerJoin('asset_states as a', (join) => join.onRef('a.tenant_id', '=', 'v.tenant_id').onRef('a.asset_id', '=', 'v.asset_id'))
    .selectAll('v')
    .select([
      'a.status as asset_status',
      'a.content_type as asset_content_type',
      'a.size as asset_size',
      'a.duration_ms as asset_duration_ms',
    ])
    .where('v.tenant_id', '=', tenantId)
    .where('v.entity_id', '=', filter.entityId);
  if (filter.kind !== undefined) query = query.where('v.kind', '=', filter.kind);
  if (filter.id !== undefined) query = query.where('v.id', '=', filter.id);
  if (filter.after !== undefined) {
    const { kind, id } = filter.after;
    query = query.where(
      sql<boolean>`(${KIND_ORDER}, v.id) > (array_position(array['AUDIO','ARTWORK','VIDEO']::text[], ${kind}::text), ${id}::uuid)`,
    );
  }
  if (filter.limit !== undefined) query = query.limit(filter.limit);
  return query.orderBy(KIND_ORDER).orderBy('v.id', 'asc').execute() as Promise<VersionRecord[]>;
}

export interface NewVersionRow {
  id: string;
  tenantId: string;
  entityId: string;
  kind: AssetKind;
  label: string;
  versionType: string;
  isPrimary: boolean;
  assetId: string;
}

export function insertVersion(db: Kysely<CatalogDb>, row: NewVersionRow): Promise<VersionRow> {
  return db
    .insertInto('versions')
    .values({
      id: row.id,
      tenant_id: row.tenantId,
      entity_id: row.entityId,
      kind: row.kind,
      label: row.label,
      version_type: row.versionType,
      is_primary: row.isPrimary,
      asset_id: row.assetId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findVersion(db: Kysely<CatalogDb>, tenantId: string, entityId: string, id: string): Promise<VersionRow | undefined> {
  return db
    .selectFrom('versions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', entityId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The version whose file is `assetId`, of any entity of the tenant. */
export function findVersionByAsset(db: Kysely<CatalogDb>, tenantId: string, assetId: string): Promise<VersionRow | undefined> {
  return db.selectFrom('versions').selectAll().where('tenant_id', '=', tenantId).where('asset_id', '=', assetId).executeTakeFirst();
}

/** The versions of one kind of an entity. */
function versionsOfKind(db: Kysely<CatalogDb>, tenantId: string, entityId: string, kind: AssetKind) {
  return db.selectFrom('versions').selectAll().where('tenant_id', '=', tenantId).where('entity_id', '=', entityId).where('kind', '=', kind);
}

export function findPrimaryVersion(
  db: Kysely<CatalogDb>,
  tenantId: string,
  entityId: string,
  kind: AssetKind,
): Promise<VersionRow | undefined> {
  return versionsOfKind(db, tenantId, entityId, kind).where('is_primary', '=', true).executeTakeFirst();
}

export async function countVersions(db: Kysely<CatalogDb>, tenantId: string, entityId: string): Promise<number> {
  const row = await db
    .selectFrom('versions')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', entityId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** How many versions the entity has, in one statement; null when the tenant has no such entity. */
export async function countVersionsOfEntity(db: Kysely<CatalogDb>, tenantId: string, entityId: string): Promise<number | null> {
  const row = await db
    .selectFrom('entities as e')
    .select((eb) =>
      eb
        .selectFrom('versions as v')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('v.tenant_id', '=', 'e.tenant_id')
        .whereRef('v.entity_id', '=', 'e.id')
        .as('count'),
    )
    .where('e.tenant_id', '=', tenantId)
    .where('e.id', '=', entityId)
    .executeTakeFirst();
  return row ? Number(row.count) : null;
}

/** The newest version of a kind (highest UUIDv7 id). */
export function findNewestVersion(
  db: Kysely<CatalogDb>,
  tenantId: string,
  entityId: string,
  kind: AssetKind,
): Promise<VersionRow | undefined> {
  return versionsOfKind(db, tenantId, entityId, kind).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export type VersionChanges = Partial<{
  label: string;
  version_type: string;
  is_primary: boolean;
  markers: Marker[];
  markers_set_by: 'hand' | 'analysis';
  analyses_checked_at: Date;
}>;

/** Writes `changes` and moves `updated_at` to the time of the write. */
export function updateVersionRow(db: Kysely<CatalogDb>, tenantId: string, id: string, changes: VersionChanges): Promise<VersionRow> {
  const { markers, ...rest } = changes;
  return db
    .updateTable('versions')
    .set({
      ...rest,
      ...(markers !== undefined ? { markers: JSON.stringify(markers) } : {}),
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function deleteVersionRow(db: Kysely<CatalogDb>, tenantId: string, id: string): Promise<VersionRow | undefined> {
  return db.deleteFrom('versions').where('tenant_id', '=', tenantId).where('id', '=', id).returningAll().executeTakeFirst();
}

export function listVersionsOfEntity(db: Kysely<CatalogDb>, tenantId: string, entityId: string): Promise<VersionRow[]> {
  return db.selectFrom('versions').selectAll().where('tenant_id', '=', tenantId).where('entity_id', '=', entityId).orderBy('id').execute();
}

/** Marks that an AUDIO version's ONLINE file was checked against the entity type's automatic analyses. */
export function markAnalysesChecked(db: Kysely<CatalogDb>, tenantId: string, id: string): Promise<void> {
  return db
    .updateTable('versions')
    .set({ analyses_checked_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
    .then(() => undefined);
}
