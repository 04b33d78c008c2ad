import type { Version } from '@catalog/contracts';
import { sql, type EventPosition, type Kysely, type Transaction } from '@catalog/platform';
import type { KnownAsset, ProjectedTrack } from '../domain/track.js';
import type { LibraryDb } from './tables.js';

type Db = Kysely<LibraryDb> | Transaction<LibraryDb>;

/**
 * Takes the entity's position for an event at `position` (order per entity, decision 0102): false
 * when an event of the entity at a later position of the same stream was applied already (this
 * one is older, or a redelivery after it); else records the position, locking the entity's row
 * until the transaction ends.
 */
export async function claimEntityPosition(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  entityId: string,
  position: EventPosition,
): Promise<boolean> {
  const row = await trx
    .insertInto('entity_positions')
    .values({ tenant_id: tenantId, entity_id: entityId, stream: position.stream, seq: position.seq })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'entity_id'])
        .doUpdateSet({ stream: position.stream, seq: position.seq })
        .where((eb) =>
          eb.or([eb('entity_positions.stream', '<>', position.stream), eb('entity_positions.seq', '<=', String(position.seq))]),
        ),
    )
    .returning('seq')
    .executeTakeFirst();
  return row !== undefined;
}

/** Records what an asset event says of an entity's file, unless a later event of the asset was applied already. */
export async function recordAssetState(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  asset: { assetId: string; entityId: string } & KnownAsset,
  position: EventPosition,
): Promise<void> {
  await trx
    .insertInto('asset_states')
    .values({
      tenant_id: tenantId,
      asset_id: asset.assetId,
      entity_id: asset.entityId,
      status: asset.status,
      duration_ms: asset.durationMs,
      stream: position.stream,
      seq: position.seq,
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'asset_id'])
        .doUpdateSet({
          entity_id: asset.entityId,
          status: asset.status,
          duration_ms: asset.durationMs,
          stream: position.stream,
          seq: position.seq,
        })
        .where((eb) => eb.or([eb('asset_states.stream', '<>', position.stream), eb('asset_states.seq', '<', String(position.seq))])),
    )
    .execute();
}

/** The files of the entity as its asset events described them, by asset id. */
export async function knownAssets(db: Db, tenantId: string, entityId: string): Promise<Map<string, KnownAsset>> {
  const rows = await db
    .selectFrom('asset_states')
    .select(['asset_id', 'status', 'duration_ms'])
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', entityId)
    .execute();
  return new Map(rows.map((r) => [r.asset_id, { status: r.status, durationMs: r.duration_ms }]));
}

/** The stored track row of an entity. */
function trackOf(db: Db, tenantId: string, entityId: string) {
  return db.selectFrom('tracks').where('tenant_id', '=', tenantId).where('entity_id', '=', entityId);
}

/** The stored track of an entity (summary and detail), or undefined. */
export function findTrack(db: Db, tenantId: string, entityId: string) {
  return trackOf(db, tenantId, entityId).select(['summary', 'detail']).executeTakeFirst();
}

/** The stored track of an entity with the catalog's versions it was made of (for the projection), or undefined. */
export function findProjectedTrack(db: Db, tenantId: string, entityId: string) {
  return trackOf(db, tenantId, entityId).select(['summary', 'detail', 'catalog_versions']).executeTakeFirst();
}

/** Inserts or replaces the track of an entity, with the catalog's versions it was made of. */
export async function saveTrack(trx: Transaction<LibraryDb>, tenantId: string, track: ProjectedTrack, versions: Version[]): Promise<void> {
  const c = track.columns;
  const values = {
    entity_type: c.entityType,
    title_sort: c.titleSort,
    artist_sort: c.artistSort,
    has_dmrn: c.hasDmrn,
    duration_ms: c.durationMs,
    bpm: c.bpm,
    camelot: c.camelot,
    integrated_lufs: c.integratedLufs,
    search: sql<string>`setweight(to_tsvector('simple', ${c.titleWords}), 'A') || setweight(to_tsvector('simple', ${c.artistWords}), 'B')`,
    summary: JSON.stringify(track.summary),
    detail: JSON.stringify(track.detail),
    catalog_versions: JSON.stringify(versions),
    updated_at: c.updatedAt,
  };
  await trx
    .insertInto('tracks')
    .values({ tenant_id: tenantId, entity_id: track.entityId, listed_at: new Date(), ...values })
    .onConflict((oc) => oc.columns(['tenant_id', 'entity_id']).doUpdateSet(values))
    .execute();
}

/** Removes the track of an entity; true when there was one. */
export async function deleteTrack(trx: Transaction<LibraryDb>, tenantId: string, entityId: string): Promise<boolean> {
  const result = await trx.deleteFrom('tracks').where('tenant_id', '=', tenantId).where('entity_id', '=', entityId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
