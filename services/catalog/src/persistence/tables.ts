import type { ColumnType } from 'kysely';

/** Timestamps the database sets on insert; updates set them explicitly (to `clock_timestamp()`). */
type Timestamp = ColumnType<Date, never, Date>;

export interface EntityTypesTable {
  tenant_id: string;
  name: string;
  automatic_analyses: ColumnType<string[], string[] | undefined, string[]>;
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

/** The tables of the `catalog` schema as the service's queries see them. */
export interface CatalogDb {
  entity_types: EntityTypesTable;
  entities: EntitiesTable;
}
