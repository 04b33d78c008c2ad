import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * `library.assignments` (decision 0132): which entity each playout integration carries and its
 * sync state, as the catalog's assignment events said (the event position of the last one applied
 * per row, so an older or repeated event changes nothing; a removed assignment keeps its row with
 * `sync_state` null). The track listing filters by it (`integrationId`, `syncState`). Frozen in time.
 */
export const assignments: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE library.assignments (
           tenant_id uuid NOT NULL,
           integration_id uuid NOT NULL,
           entity_id uuid NOT NULL,
           sync_state text CHECK (sync_state IN ('pending', 'synced', 'failed')),
           stream text NOT NULL,
           seq bigint NOT NULL,
           PRIMARY KEY (tenant_id, integration_id, entity_id)
         );
         CREATE INDEX assignments_by_state ON library.assignments (tenant_id, integration_id, sync_state, entity_id)
           WHERE sync_state IS NOT NULL;
         CREATE INDEX assignments_by_entity_state ON library.assignments (tenant_id, sync_state, entity_id)
           WHERE sync_state IS NOT NULL;`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'library', 'assignments');
  },
};
