import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * Assignments (decision 0132): the entities a playout integration carries, one row per
 * (integration, entity), with its sync state, the versions last reported synced, the external id
 * and the connector's error. They go with their integration or entity (cascade; the domain records
 * their assignment.deleted events first). Listed per integration and state in id order. Frozen.
 */
export const assignments: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.assignments (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           integration_id uuid NOT NULL REFERENCES catalog.integrations (id) ON DELETE CASCADE,
           entity_id uuid NOT NULL REFERENCES catalog.entities (id) ON DELETE CASCADE,
           sync_state text NOT NULL DEFAULT 'pending' CHECK (sync_state IN ('pending', 'synced', 'failed')),
           version_ids uuid[] NOT NULL DEFAULT '{}',
           external_id text,
           error text,
           state_changed_at timestamptz NOT NULL DEFAULT now(),
           synced_at timestamptz,
           created_at timestamptz NOT NULL DEFAULT now()
         );
         CREATE UNIQUE INDEX assignments_integration_entity_key ON catalog.assignments (integration_id, entity_id);
         CREATE INDEX assignments_state_idx ON catalog.assignments (tenant_id, integration_id, sync_state, id);
         CREATE INDEX assignments_list_idx ON catalog.assignments (tenant_id, integration_id, id);
         CREATE INDEX assignments_entity_idx ON catalog.assignments (tenant_id, entity_id);`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'catalog', 'assignments');
  },
};
