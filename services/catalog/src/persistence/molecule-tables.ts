import type { MoleculeAnchor, MoleculeElementKind } from '@catalog/contracts';
import type { ColumnType } from 'kysely';

/** Timestamps the database sets on insert; updates set them explicitly (to `clock_timestamp()`). */
type Timestamp = ColumnType<Date, never, Date>;

/** A molecule (decision 0137); its elements are `molecule_elements`. */
export interface MoleculesTable {
  id: string;
  tenant_id: string;
  title: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One element of a molecule, in play order by `position` (gaps allowed). */
export interface MoleculeElementsTable {
  tenant_id: string;
  molecule_id: string;
  position: number;
  entity_id: string;
  kind: MoleculeElementKind;
  anchor: MoleculeAnchor;
  offset_ms: number;
}
