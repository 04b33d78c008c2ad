import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * The library's read model (decisions 0100-0102), every table under forced tenant row-level
 * security:
 * - `tracks`: one row per entity that has a primary ONLINE audio version; the columns the listing
 *   filters and sorts on, the searchable text as a `simple` tsvector of the accent-free lower-case
 *   words (title weight A, artist weight B), and the track as the API shows it (`summary`,
 *   `detail`);
 * - `entity_positions`: the newest event position applied per entity (order per entity, also
 *   for entities that are not tracks);
 * - `asset_states`: the status and duration of the entities' files as their asset events say.
 * Frozen in time.
 */
export const tracks: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE library.tracks (
           tenant_id uuid NOT NULL,
           entity_id uuid NOT NULL,
           entity_type text NOT NULL,
           title_sort text COLLATE "C" NOT NULL,
           artist_sort text COLLATE "C",
           has_dmrn boolean NOT NULL,
           duration_ms integer,
           bpm double precision,
           camelot text,
           integrated_lufs double precision,
           search tsvector NOT NULL,
           summary jsonb NOT NULL,
           detail jsonb NOT NULL,
           listed_at timestamptz NOT NULL,
           updated_at timestamptz NOT NULL,
           PRIMARY KEY (tenant_id, entity_id)
         );
         CREATE INDEX tracks_search ON library.tracks USING gin (search);
         CREATE INDEX tracks_title ON library.tracks (tenant_id, title_sort, entity_id);
         CREATE INDEX tracks_artist ON library.tracks (tenant_id, artist_sort, entity_id);
         CREATE INDEX tracks_bpm ON library.tracks (tenant_id, bpm, entity_id);
         CREATE INDEX tracks_duration ON library.tracks (tenant_id, duration_ms, entity_id);
         CREATE INDEX tracks_updated ON library.tracks (tenant_id, updated_at, entity_id);

         CREATE TABLE library.entity_positions (
           tenant_id uuid NOT NULL,
           entity_id uuid NOT NULL,
           stream text NOT NULL,
           seq bigint NOT NULL,
           PRIMARY KEY (tenant_id, entity_id)
         );

         CREATE TABLE library.asset_states (
           tenant_id uuid NOT NULL,
           asset_id uuid NOT NULL,
           entity_id uuid NOT NULL,
           status text NOT NULL,
           duration_ms integer,
           stream text NOT NULL,
           seq bigint NOT NULL,
           PRIMARY KEY (tenant_id, asset_id)
         );`,
      )
      .execute(db);
    for (const table of ['tracks', 'entity_positions', 'asset_states']) await enableTenantRlsV1(db, 'library', table);
  },
};
