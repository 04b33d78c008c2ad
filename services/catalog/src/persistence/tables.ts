import type { AssetKind, AssetStatus, Marker, RelationAttributes, RelationType } from '@catalog/contracts';
import type { ColumnType } from 'kysely';
import type { EntityImportKeysTable, JobsTable } from './import-tables.js';
import type { AssignmentsTable, IntegrationsTable } from './integration-tables.js';
import type { MoleculeElementsTable, MoleculesTable } from './molecule-tables.js';

/** Timestamps the database sets on insert; updates set them explicitly (to `clock_timestamp()`). */
type Timestamp = ColumnType<Date, never, Date>;

export interface EntityTypesTable {
  tenant_id: string;
  name: string;
  automatic_analyses: ColumnType<string[], string[] | undefined, string[]>;
  /** The cue points of its versions' analyses become their markers (decision 0088). */
  cue_point_markers: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EntitiesTable {
  id: string;
  tenant_id: string;
  type: string;
  title: string;
  artist: string | null;
  dmrn: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** int8 columns arrive as strings (pg keeps 64-bit integers exact). */
type NullableInt8 = ColumnType<string | null, number | string | null, number | string | null>;

export interface AssetStatesTable {
  tenant_id: string;
  asset_id: string;
  status: AssetStatus;
  kind: AssetKind;
  content_type: string;
  size: NullableInt8;
  duration_ms: number | null;
  /** Incarnation (creation time) of the events stream the row's event came from; '' for an RPC answer. */
  event_stream: ColumnType<string, string | undefined, string>;
  /** Stream sequence of the asset event the row reflects; 0 for what an RPC answer said. */
  event_seq: ColumnType<string, number | string | undefined, number | string>;
  /** When the asset service wrote these facts: the event's occurredAt, or the answer's updatedAt. */
  facts_at: Date;
  updated_at: Timestamp;
}

export interface VersionsTable {
  id: string;
  tenant_id: string;
  entity_id: string;
  kind: AssetKind;
  label: string;
  version_type: string;
  is_primary: boolean;
  asset_id: string;
  markers: ColumnType<Marker[], string | undefined, string>;
  /** Who wrote the markers last: 'hand' (PUT markers) or 'analysis' (cue points); null while none were written. */
  markers_set_by: ColumnType<'hand' | 'analysis' | null, never, 'hand' | 'analysis'>;
  analyses_checked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An asset the catalog may have attached to a version that is not (yet) written (decision 0025). */
export interface AttachIntentsTable {
  version_id: string;
  tenant_id: string;
  asset_id: string;
  /** The source system of the write that made the version: the release, if any, is recorded as its. */
  source_system: string;
  created_at: Timestamp;
  /** Set when the sweeper claimed the intent (its version is given up for good); until then its lease, then the time it ended. */
  claimed_until: ColumnType<Date | null, never, Date | null>;
}

/** Every tenant that has had an entity (kept by a trigger on `entities`; decision 0102). */
export interface EntityTenantsTable {
  tenant_id: string;
  created_at: Timestamp;
}

/** A typed, directed relation between two entities of the tenant (decision 0136). */
export interface RelationsTable {
  id: string;
  tenant_id: string;
  type: RelationType;
  source_id: string;
  target_id: string;
  attributes: ColumnType<RelationAttributes, string | undefined, never>;
  created_at: Timestamp;
}

/** The tables of the `catalog` schema as the service's queries see them. */
export interface CatalogDb {
  entity_types: EntityTypesTable;
  entities: EntitiesTable;
  asset_states: AssetStatesTable;
  versions: VersionsTable;
  attach_intents: AttachIntentsTable;
  entity_tenants: EntityTenantsTable;
  jobs: JobsTable;
  entity_import_keys: EntityImportKeysTable;
  integrations: IntegrationsTable;
  assignments: AssignmentsTable;
  relations: RelationsTable;
  molecules: MoleculesTable;
  molecule_elements: MoleculeElementsTable;
}
