import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * `catalog.jobs`: the import jobs of decision 0134, one row each, under the tenant's row-level
 * security. The row is the job's checkpoint: `processed` rows of its file are done, counted and
 * committed with the entities they wrote; `runner` names the delivery of its message that runs it
 * now (a newer delivery takes over, the older one stops at its next chunk). `errors` keeps the
 * first bad rows only (the API's limit), `error_count` counts all. Frozen in time.
 */
export const importJobs: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.jobs (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           type text NOT NULL CHECK (type IN ('import')),
           asset_id uuid NOT NULL,
           state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
           source_system text NOT NULL,
           total integer CHECK (total >= 0),
           processed integer NOT NULL DEFAULT 0 CHECK (processed >= 0),
           created integer NOT NULL DEFAULT 0,
           updated integer NOT NULL DEFAULT 0,
           unchanged integer NOT NULL DEFAULT 0,
           skipped integer NOT NULL DEFAULT 0,
           errors jsonb NOT NULL DEFAULT '[]'::jsonb,
           error_count integer NOT NULL DEFAULT 0,
           attempts integer NOT NULL DEFAULT 0,
           runner uuid,
           reported_processed integer NOT NULL DEFAULT 0,
           reported_at timestamptz,
           failure_code text,
           failure_message text,
           created_at timestamptz NOT NULL DEFAULT now(),
           started_at timestamptz,
           finished_at timestamptz,
           updated_at timestamptz NOT NULL DEFAULT now()
         );
         CREATE INDEX jobs_tenant_newest_idx ON catalog.jobs (tenant_id, id DESC);`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'catalog', 'jobs');
  },
};
