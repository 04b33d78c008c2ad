import type { TrackAnalysis, TrackSummary, TrackVersion, Version } from '@catalog/contracts';
import { sql, type EventPosition, type Kysely, type Transaction } from '@catalog/platform';
import type { LibraryDb } from './tables.js';

/** What the library knows of a file from its asset events (newer than the catalog's copy, or not yet in it). */
export interface KnownAsset {
  status: string;
  durationMs: number | null;
}

/** The track of an entity as the read model stores it. */
export interface ProjectedTrack {
  entityId: string;
  summary: TrackSummary;
  detail: { versions: Record<'AUDIO' | 'ARTWORK' | 'VIDEO', TrackVersion | null>; analysis: TrackAnalysis };
  /** The columns the listing filters and sorts on. */
  columns: {
    entityType: string;
    titleSort: string;
    artistSort: string | null;
    hasDmrn: boolean;
    durationMs: number | null;
    bpm: number | null;
    camelot: string | null;
    integratedLufs: number | null;
    /** Folded words of the title and of the artist, for the tsvector. */
    titleWords: string;
    artistWords: string;
    updatedAt: Date;
  };
}

type Db = Kysely<LibraryDb> | Transaction<LibraryDb>;

/**
 * Takes the entities' positions for their events (order per entity, decision 0102), in one
 * statement, locking in entity order: an entity is left out (not claimed) when an event of it at
 * a later position of the same stream was applied already (its event is older, or a redelivery
 * after it); a claimed entity's position is recorded and its row locked until the transaction
 * ends. Returns the ids of the entities claimed. Each entity at most once.
 */
export async function claimEntityPositions(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  claims: ReadonlyArray<{ entityId: string; position: EventPosition }>,
): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const { rows } = await sql<{ entity_id: string }>`
    insert into library.entity_positions (tenant_id, entity_id, stream, seq)
    select ${tenantId}::uuid, c.entity_id, c.stream, c.seq
      from unnest(${claims.map((c) => c.entityId)}::uuid[], ${claims.map((c) => c.position.stream)}::text[],
                  ${claims.map((c) => String(c.position.seq))}::bigint[]) as c(entity_id, stream, seq)
     order by c.entity_id
    on conflict (tenant_id, entity_id) do update set stream = excluded.stream, seq = excluded.seq
     where library.entity_positions.stream <> excluded.stream or library.entity_positions.seq <= excluded.seq
    returning entity_id`.execute(trx);
  return new Set(rows.map((r) => r.entity_id));
}

/** `claimEntityPositions` of one entity: true when claimed. */
export async function claimEntityPosition(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  entityId: string,
  position: EventPosition,
): Promise<boolean> {
  return (await claimEntityPositions(trx, tenantId, [{ entityId, position }])).has(entityId);
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

/** The files of the entities as their asset events described them: by entity, then by asset id. */
export async function knownAssetsOf(db: Db, tenantId: string, entityIds: readonly string[]): Promise<Map<string, Map<string, KnownAsset>>> {
  const known = new Map<string, Map<string, KnownAsset>>(entityIds.map((id) => [id, new Map()]));
  if (entityIds.length === 0) return known;
  const rows = await db
    .selectFrom('asset_states')
    .select(['entity_id', 'asset_id', 'status', 'duration_ms'])
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', sql<string>`any(${[...entityIds]}::uuid[])`)
    .execute();
  for (const r of rows) known.get(r.entity_id)?.set(r.asset_id, { status: r.status, durationMs: r.duration_ms });
  return known;
}

/** The stored track row of an entity. */
function trackOf(db: Db, tenantId: string, entityId: string) {
  return db.selectFrom('tracks').where('tenant_id', '=', tenantId).where('entity_id', '=', entityId);
}

/** The stored track of an entity (summary and detail), or undefined. */
export function findTrack(db: Db, tenantId: string, entityId: string) {
  return trackOf(db, tenantId, entityId).select(['summary', 'detail']).executeTakeFirst();
}

/** The stored tracks of the entities with the catalog's versions each was made of (for the projection), by entity. */
export async function findProjectedTracks(db: Db, tenantId: string, entityIds: readonly string[]) {
  if (entityIds.length === 0) return new Map<string, never>();
  const rows = await db
    .selectFrom('tracks')
    .select(['entity_id', 'summary', 'detail', 'catalog_versions'])
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', sql<string>`any(${[...entityIds]}::uuid[])`)
    .execute();
  return new Map(rows.map((r) => [r.entity_id, r]));
}

/**
 * Inserts or replaces the tracks of entities (each at most once), with the catalog's versions each
 * was made of: one statement whose text is the same for any number of tracks (the rows arrive as
 * arrays), in entity order.
 */
export async function saveTracks(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  tracks: ReadonlyArray<{ track: ProjectedTrack; versions: Version[] }>,
): Promise<void> {
  if (tracks.length === 0) return;
  const column = <T>(of: (c: ProjectedTrack['columns']) => T) => tracks.map(({ track }) => of(track.columns));
  await sql`
    insert into library.tracks
      (tenant_id, entity_id, listed_at, entity_type, title_sort, artist_sort, has_dmrn, duration_ms, bpm, camelot,
       integrated_lufs, search, summary, detail, catalog_versions, updated_at)
    select ${tenantId}::uuid, t.entity_id, ${new Date()}::timestamptz, t.entity_type, t.title_sort, t.artist_sort, t.has_dmrn,
           t.duration_ms, t.bpm, t.camelot, t.integrated_lufs,
           setweight(to_tsvector('simple', t.title_words), 'A') || setweight(to_tsvector('simple', t.artist_words), 'B'),
           t.summary::jsonb, t.detail::jsonb, t.catalog_versions::jsonb, t.updated_at
      from unnest(${tracks.map(({ track }) => track.entityId)}::uuid[], ${column((c) => c.entityType)}::text[],
                  ${column((c) => c.titleSort)}::text[], ${column((c) => c.artistSort)}::text[], ${column((c) => c.hasDmrn)}::boolean[],
                  ${column((c) => c.durationMs)}::integer[], ${column((c) => c.bpm)}::float8[], ${column((c) => c.camelot)}::text[],
                  ${column((c) => c.integratedLufs)}::float8[], ${column((c) => c.titleWords)}::text[],
                  ${column((c) => c.artistWords)}::text[], ${tracks.map(({ track }) => JSON.stringify(track.summary))}::text[],
                  ${tracks.map(({ track }) => JSON.stringify(track.detail))}::text[], ${tracks.map(({ versions }) => JSON.stringify(versions))}::text[],
                  ${column((c) => c.updatedAt)}::timestamptz[])
           as t(entity_id, entity_type, title_sort, artist_sort, has_dmrn, duration_ms, bpm, camelot, integrated_lufs,
                title_words, artist_words, summary, detail, catalog_versions, updated_at)
     order by t.entity_id
    on conflict (tenant_id, entity_id) do update set
      entity_type = excluded.entity_type, title_sort = excluded.title_sort, artist_sort = excluded.artist_sort,
      has_dmrn = excluded.has_dmrn, duration_ms = excluded.duration_ms, bpm = excluded.bpm, camelot = excluded.camelot,
      integrated_lufs = excluded.integrated_lufs, search = excluded.search, summary = excluded.summary, detail = excluded.detail,
      catalog_versions = excluded.catalog_versions, updated_at = excluded.updated_at`.execute(trx);
}

/** Inserts or replaces the track of an entity, with the catalog's versions it was made of. */
export function saveTrack(trx: Transaction<LibraryDb>, tenantId: string, track: ProjectedTrack, versions: Version[]): Promise<void> {
  return saveTracks(trx, tenantId, [{ track, versions }]);
}

/** Removes the tracks of the entities; returns the ids of those that had one. */
export async function deleteTracks(trx: Transaction<LibraryDb>, tenantId: string, entityIds: readonly string[]): Promise<Set<string>> {
  if (entityIds.length === 0) return new Set();
  const rows = await trx
    .deleteFrom('tracks')
    .where('tenant_id', '=', tenantId)
    .where('entity_id', '=', sql<string>`any(${[...entityIds]}::uuid[])`)
    .returning('entity_id')
    .execute();
  return new Set(rows.map((r) => r.entity_id));
}

/** Removes the track of an entity; true when there was one. */
export async function deleteTrack(trx: Transaction<LibraryDb>, tenantId: string, entityId: string): Promise<boolean> {
  return (await deleteTracks(trx, tenantId, [entityId])).has(entityId);
}

/**
 * The tracks among these entities, with their DMRNs, each locked against its removal until the
 * transaction ends (in entity order; its update is not held up): an event recorded for one comes
 * before its `track.removed`.
 */
export async function lockTracksOf(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  entityIds: readonly string[],
): Promise<Map<string, string | null>> {
  if (entityIds.length === 0) return new Map();
  const { rows } = await sql<{ entity_id: string; dmrn: string | null }>`
    select entity_id, summary->'externalReferences'->>'dmrn' as dmrn
      from library.tracks
     where tenant_id = ${tenantId}::uuid and entity_id = any(${[...entityIds]}::uuid[])
     order by entity_id
       for key share`.execute(trx);
  return new Map(rows.map((r) => [r.entity_id, r.dmrn]));
}
