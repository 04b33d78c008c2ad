import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * Relations between entities (decision 0136): typed, directed (`source_id` is the entity the
 * relation is said of), never from an entity to itself, at most one per (source, type, target),
 * and one per pair for the symmetric `same_work_as` whichever way it was created. The foreign keys
 * do not cascade: the entity's deletion deletes its relations itself, each with its
 * `relation.deleted` event, and a deletion that did not would fail. Frozen in time.
 */
export const relations: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.relations (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           type text NOT NULL
             CHECK (type IN ('remix_of', 'cover_of', 'edit_of', 'samples', 'part_of', 'same_work_as', 'jingle_for')),
           source_id uuid NOT NULL REFERENCES catalog.entities (id),
           target_id uuid NOT NULL REFERENCES catalog.entities (id),
           attributes jsonb NOT NULL DEFAULT '{}'::jsonb,
           created_at timestamptz NOT NULL DEFAULT now(),
           CHECK (source_id <> target_id)
         );
         CREATE UNIQUE INDEX relations_directed_key ON catalog.relations (tenant_id, source_id, type, target_id);
         CREATE UNIQUE INDEX relations_symmetric_key
           ON catalog.relations (tenant_id, type, least(source_id, target_id), greatest(source_id, target_id))
           WHERE type = 'same_work_as';
         CREATE INDEX relations_source_idx ON catalog.relations (tenant_id, source_id, id);
         CREATE INDEX relations_target_idx ON catalog.relations (tenant_id, target_id, id);`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'catalog', 'relations');
  },
};
