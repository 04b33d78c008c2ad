import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * Molecules (decision 0137): a named, ordered composite of entities that plays as one unit.
 * Frozen in time: later changes go in new migrations, never edits here.
 *
 * - `molecules`: one row per molecule; its writes lock the row, so they take turns per molecule.
 * - `molecule_elements`: the elements in play order (`position`: an order, gaps allowed after an
 *   element is removed). `entity_id` references the entity WITHOUT a cascade: deleting an entity
 *   removes its elements first, with their `molecule.updated` events (deleteEntity), and the key
 *   makes a write that adds an element wait for, or see, the deletion of its entity. Elements go
 *   with their molecule (cascade). The timeline is not stored: it is resolved on every read.
 *   `kind`: only AUDIO plays in a timeline (a list, for the kinds a later migration may add).
 */
export const molecules: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.molecules (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           title text NOT NULL,
           created_at timestamptz NOT NULL DEFAULT now(),
           updated_at timestamptz NOT NULL DEFAULT now()
         );
         CREATE INDEX molecules_tenant_id_idx ON catalog.molecules (tenant_id, id);

         CREATE TABLE catalog.molecule_elements (
           tenant_id uuid NOT NULL,
           molecule_id uuid NOT NULL REFERENCES catalog.molecules (id) ON DELETE CASCADE,
           position integer NOT NULL CHECK (position >= 0),
           entity_id uuid NOT NULL REFERENCES catalog.entities (id),
           kind text NOT NULL CHECK (kind = ANY (ARRAY['AUDIO'])),
           anchor text NOT NULL CHECK (anchor IN ('start', 'previous_cue_out', 'previous_next_track_start')),
           offset_ms integer NOT NULL,
           PRIMARY KEY (molecule_id, position)
         );
         CREATE INDEX molecule_elements_entity_idx ON catalog.molecule_elements (tenant_id, entity_id);`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'catalog', 'molecules');
    await enableTenantRlsV1(db, 'catalog', 'molecule_elements');
  },
};
