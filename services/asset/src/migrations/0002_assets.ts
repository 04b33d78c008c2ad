import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * Assets (one row per file, with its current upload target) under row-level security, and the
 * retention queue the sweeper reads across tenants. Frozen in time: later changes go in new
 * migrations, never edits here.
 */
export const assets: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE asset.assets (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           retention text NOT NULL CHECK (retention IN ('standalone', 'attached')),
           kind text NOT NULL CHECK (kind IN ('AUDIO', 'ARTWORK', 'VIDEO')),
           status text NOT NULL CHECK (status IN ('PENDING_UPLOAD', 'ONLINE', 'FAILED', 'EXPIRED')),
           entity_id uuid,
           filename text NOT NULL,
           content_type text NOT NULL,
           declared_size bigint CHECK (declared_size > 0),
           declared_sha256 text CHECK (declared_sha256 ~ '^[0-9a-f]{64}$'),
           upload_id uuid NOT NULL,
           object_key text NOT NULL,
           upload_expires_at timestamptz NOT NULL,
           uploaded_size bigint,
           uploaded_sha256 text,
           uploaded_etag text,
           size bigint,
           sha256 text,
           blob_etag text,
           duration_ms integer,
           failure_code text,
           failure_message text,
           expires_at timestamptz,
           confirmed_at timestamptz,
           created_at timestamptz NOT NULL DEFAULT now(),
           updated_at timestamptz NOT NULL DEFAULT now(),
           CHECK (status <> 'ONLINE' OR (size IS NOT NULL AND sha256 IS NOT NULL AND confirmed_at IS NOT NULL))
         );
         CREATE INDEX assets_tenant_id_idx ON asset.assets (tenant_id, id);

         -- No tenant data beyond ids: the sweeper claims due rows of every tenant here
         -- (FOR UPDATE SKIP LOCKED), then works on each asset inside that asset's tenant.
         CREATE TABLE asset.expiries (
           asset_id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           due_at timestamptz NOT NULL
         );
         CREATE INDEX expiries_due_at_idx ON asset.expiries (due_at);`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'asset', 'assets');
  },
};
