import type { ColumnType, Generated } from 'kysely';

/** int8 columns arrive as strings (pg keeps 64-bit integers exact). */
type Int8 = ColumnType<string, number | string, number | string>;
/** jsonb columns: written as JSON text, read as the parsed value. */
type Json<T> = ColumnType<T, string, string>;

/** The track as the listing shows it, less its timestamps (schemas/library.ts `TrackSummary`). */
export type StoredSummary = Record<string, unknown>;
/** What the single track adds to the summary: `versions` and `analysis`. */
export type StoredDetail = Record<string, unknown>;

export interface TracksTable {
  tenant_id: string;
  entity_id: string;
  entity_type: string;
  title_sort: string;
  artist_sort: string | null;
  has_dmrn: boolean;
  duration_ms: number | null;
  bpm: number | null;
  camelot: string | null;
  integrated_lufs: number | null;
  /** Written with `to_tsvector` in SQL; never read back. */
  search: ColumnType<string, string, string>;
  summary: Json<StoredSummary>;
  detail: Json<StoredDetail>;
  /** The entity's versions as last read from the catalog (decision 0107); null: not recorded. */
  catalog_versions: ColumnType<unknown[] | null, string | null | undefined, string | null>;
  listed_at: Date;
  updated_at: Date;
}

export interface EntityPositionsTable {
  tenant_id: string;
  entity_id: string;
  stream: string;
  seq: Int8;
}

export interface AssetStatesTable {
  tenant_id: string;
  asset_id: string;
  entity_id: string;
  status: string;
  duration_ms: number | null;
  stream: string;
  seq: Int8;
}

/** The one row saying which projection version the tracks were rebuilt with (decision 0104). */
export interface ProjectionTable {
  id: ColumnType<boolean, boolean | undefined, never>;
  version: number;
  rebuilt_at: ColumnType<Date, Date | undefined, Date>;
}

/**
 * The words of each track's `search` with copies of its filter columns and the word's weight in
 * the track, kept by a trigger on `tracks` (decisions 0105, 0112, 0169).
 */
export interface TrackWordsTable {
  tenant_id: string;
  word: string;
  entity_id: string;
  entity_type: string;
  has_dmrn: boolean;
  duration_ms: number | null;
  bpm: number | null;
  camelot: string | null;
  integrated_lufs: number | null;
  /** `ts_rank` of the track's `search` for this word alone. */
  weight: number;
}

/** Which entity each playout integration carries, from the catalog's assignment events (decision 0132). */
export interface AssignmentsTable {
  tenant_id: string;
  integration_id: string;
  entity_id: string;
  /** null: the assignment was removed. */
  sync_state: string | null;
  stream: string;
  seq: Int8;
}

/** The relations of entities, from the catalog's relation events (decision 0136); `deleted`: its deletion was applied. */
export interface RelationsTable {
  tenant_id: string;
  relation_id: string;
  type: string;
  source_id: string;
  target_id: string;
  deleted: boolean;
}

/** The title of every entity the projection has read (decision 0136). */
export interface EntityTitlesTable {
  tenant_id: string;
  entity_id: string;
  title: string;
}

/** The tables of the `library` schema as the service's queries see them. */
/** Whether the tenant was last found subscribed to the library product (decision 0149). */
export interface SubscriptionsTable {
  tenant_id: string;
  active: boolean;
  changed_at: Generated<Date>;
}

export interface LibraryDb {
  projection: ProjectionTable;
  tracks: TracksTable;
  track_words: TrackWordsTable;
  entity_positions: EntityPositionsTable;
  asset_states: AssetStatesTable;
  relations: RelationsTable;
  entity_titles: EntityTitlesTable;
  assignments: AssignmentsTable;
  subscriptions: SubscriptionsTable;
}
