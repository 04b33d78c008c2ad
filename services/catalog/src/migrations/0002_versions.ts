import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * Versions of entities and the asset facts the catalog keeps for their files. Frozen in time: later changes go in new migrations, never edits here.
 *
 * - `asset_states`: one row per asset of the tenant, filled from asset events (ordered by their
 *   stream sequence `event_seq` within one incarnation `event_stream` of the events stream) and,
 *   before the first event arrives, from what the asset service answered when the version was made
 *   (`event_stream` '', `event_seq` 0). `facts_at` is when the asset service wrote the facts (the
 *   event's occurredAt, or the asset's updatedAt in an answer), to order answers and events. The version listing joins it; it never
 *   calls the asset service.
 * - `versions`: at most one primary per (entity, kind), enforced by a partial unique index; an
 *   asset is the file of at most one version; versions go with their entity (cascade).
 */
export const versions: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.asset_states (
           tenant_id uuid NOT NULL,
           asset_id uuid NOT NULL,
           status text NOT NULL CHECK (status IN ('PENDING_UPLOAD', 'ONLINE', 'FAILED', 'EXPIRED')),
           kind text NOT NULL CHECK (kind IN ('AUDIO', 'ARTWORK', 'VIDEO')),
           content_type text NOT NULL,
           size bigint,
           duration_ms integer,
           event_stream text NOT NULL DEFAULT '',
           event_seq bigint NOT NULL DEFAULT 0,
           facts_at timestamptz NOT NULL,
           updated_at timestamptz NOT NULL DEFAULT now(),
           PRIMARY KEY (tenant_id, asset_id)
         );

         CREATE TABLE catalog.versions (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           entity_id uuid NOT NULL,
           kind text NOT NULL CHECK (kind IN ('AUDIO', 'ARTWORK', 'VIDEO')),
           label text NOT NULL,
           version_type text NOT NULL,
           is_primary boolean NOT NULL DEFAULT false,
           asset_id uuid NOT NULL,
           markers jsonb NOT NULL DEFAULT '[]'::jsonb,
           analyses_checked_at timestamptz,
           created_at timestamptz NOT NULL DEFAULT now(),
           updated_at timestamptz NOT NULL DEFAULT now(),
           FOREIGN KEY (entity_id) REFERENCES catalog.entities (id) ON DELETE CASCADE,
           FOREIGN KEY (tenant_id, asset_id) REFERENCES catalog.asset_states (tenant_id, asset_id)
         );
         CREATE UNIQUE INDEX versions_one_primary_per_kind ON catalog.versions (entity_id, kind) WHERE is_primary;
         CREATE UNIQUE INDEX versions_tenant_asset_key ON catalog.versions (tenant_id, asset_id);
         CREATE INDEX versions_entity_kind_idx ON catalog.versions (tenant_id, entity_id, kind, id);`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'catalog', 'asset_states');
    await enableTenantRlsV1(db, 'catalog', 'versions');
  },
};
