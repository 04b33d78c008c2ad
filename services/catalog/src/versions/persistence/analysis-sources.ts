import type { Kysely } from 'kysely';
import type { AssetKind, AssetStatus } from '@catalog/contracts';
import type { CatalogDb } from '../../persistence/tables.js';

/** A version as an analysis source: its kind, file and the file's status, and its entity's DMRN. */
export interface SourceVersionRow {
  id: string;
  entity_id: string;
  kind: AssetKind;
  asset_id: string;
  asset_status: AssetStatus;
  dmrn: string | null;
}

/** A version of any entity of the tenant with its file's status and its entity's DMRN, by id; one query. */
export function findSourceVersion(db: Kysely<CatalogDb>, tenantId: string, versionId: string): Promise<SourceVersionRow | undefined> {
  return db
    .selectFrom('versions as v')
    .innerJoin('entities as e', (join) => join.onRef('e.tenant_id', '=', 'v.tenant_id').onRef('e.id', '=', 'v.entity_id'))
    .innerJoin('asset_states as a', (join) => join.onRef('a.tenant_id', '=', 'v.tenant_id').onRef('a.asset_id', '=', 'v.asset_id'))
    .select(['v.id', 'v.entity_id', 'v.kind', 'v.asset_id', 'a.status as asset_status', 'e.dmrn'])
    .where('v.tenant_id', '=', tenantId)
    .where('v.id', '=', versionId)
    .executeTakeFirst();
}

/** An entity with its primary AUDIO version (whatever its file's status; nulls when it has none); one query. */
export interface EntityAudioRow {
  entity_id: string;
  dmrn: string | null;
  version_id: string | null;
  asset_id: string | null;
  asset_status: AssetStatus | null;
}

export function findEntityPrimaryAudio(db: Kysely<CatalogDb>, tenantId: string, entityId: string): Promise<EntityAudioRow | undefined> {
  return db
    .selectFrom('entities as e')
    .leftJoin('versions as v', (join) =>
      join
        .onRef('v.tenant_id', '=', 'e.tenant_id')
        .onRef('v.entity_id', '=', 'e.id')
        .on('v.kind', '=', 'AUDIO')
        .on('v.is_primary', '=', true),
    )
    .leftJoin('asset_states as a', (join) => join.onRef('a.tenant_id', '=', 'v.tenant_id').onRef('a.asset_id', '=', 'v.asset_id'))
    .select(['e.id as entity_id', 'e.dmrn', 'v.id as version_id', 'v.asset_id', 'a.status as asset_status'])
    .where('e.tenant_id', '=', tenantId)
    .where('e.id', '=', entityId)
    .executeTakeFirst();
}

/** The entity a version belongs to, by the version's id alone (null when the tenant has no such version). */
export async function entityOfVersion(db: Kysely<CatalogDb>, tenantId: string, versionId: string): Promise<string | null> {
  const row = await db
    .selectFrom('versions')
    .select('entity_id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', versionId)
    .executeTakeFirst();
  return row?.entity_id ?? null;
}
