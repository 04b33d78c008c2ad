import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantOrSystemRlsV1, enableTenantRlsV1 } from '@catalog/platform';

/** The balances and the append-only ledger. */
const CREDITS = `CREATE TABLE analysis.credit_accounts (
           tenant_id uuid PRIMARY KEY,
           balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
           reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
           updated_at timestamptz NOT NULL DEFAULT now()
         );

         CREATE TABLE analysis.credit_ledger (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           kind text NOT NULL CHECK (kind IN ('grant', 'reserve', 'settle', 'refund')),
           amount bigint NOT NULL,
           balance_after bigint NOT NULL,
           job_id uuid,
           reason text,
           created_at timestamptz NOT NULL DEFAULT now(),
           CHECK ((kind = 'grant') = (job_id IS NULL))
         );
         CREATE UNIQUE INDEX credit_ledger_once_per_job ON analysis.credit_ledger (tenant_id, job_id, kind) WHERE job_id IS NOT NULL;
         CREATE INDEX credit_ledger_tenant_id_idx ON analysis.credit_ledger (tenant_id, id);
         CREATE FUNCTION analysis.credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           RAISE EXCEPTION 'the credit ledger is append-only' USING ERRCODE = 'restrict_violation';
         END $$;
         CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE OR DELETE ON analysis.credit_ledger
           FOR EACH ROW EXECUTE FUNCTION analysis.credit_ledger_append_only();`;

/** The jobs. */
const JOBS = `CREATE TABLE analysis.jobs (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           type text NOT NULL,
           status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
           source jsonb NOT NULL,
           asset_id uuid NOT NULL,
           entity_id uuid,
           version_id uuid,
           dmrn text,
           options jsonb NOT NULL DEFAULT '{}'::jsonb,
           cost integer NOT NULL CHECK (cost >= 0),
           source_system text NOT NULL,
           idempotency_key text,
           request_hash text,
           origin_event_id uuid,
           attempts integer NOT NULL DEFAULT 0,
           last_error text,
           result jsonb,
           error_code text,
           error_message text,
           markers_applied_at timestamptz,
           dispatched_at timestamptz,
           lease_until timestamptz,
           created_at timestamptz NOT NULL DEFAULT now(),
           started_at timestamptz,
           finished_at timestamptz,
           updated_at timestamptz NOT NULL DEFAULT now(),
           CHECK ((status = 'SUCCEEDED') = (result IS NOT NULL)),
           CHECK ((status = 'FAILED') = (error_code IS NOT NULL))
         );
         CREATE UNIQUE INDEX jobs_idempotency_key ON analysis.jobs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
         CREATE UNIQUE INDEX jobs_origin_event_type ON analysis.jobs (tenant_id, origin_event_id, type) WHERE origin_event_id IS NOT NULL;
         CREATE INDEX jobs_tenant_id_idx ON analysis.jobs (tenant_id, id);
         CREATE INDEX jobs_tenant_asset_idx ON analysis.jobs (tenant_id, asset_id, id);
         CREATE INDEX jobs_tenant_entity_idx ON analysis.jobs (tenant_id, entity_id, id) WHERE entity_id IS NOT NULL;
         CREATE INDEX jobs_undispatched ON analysis.jobs (created_at) WHERE status = 'QUEUED';`;

/** The fingerprints of analysed files. */
const FINGERPRINTS = `CREATE TABLE analysis.fingerprints (
           tenant_id uuid NOT NULL,
           asset_id uuid NOT NULL,
           entity_id uuid,
           job_id uuid NOT NULL,
           raw bytea NOT NULL,
           keys integer[] NOT NULL,
           updated_at timestamptz NOT NULL DEFAULT now(),
           PRIMARY KEY (tenant_id, asset_id)
         );
         CREATE INDEX fingerprints_keys ON analysis.fingerprints USING gin (keys);`;

/**
 * Analysis jobs, the credit ledger and balances, and the fingerprints of analysed files
 * (decisions 0085-0089). Frozen in time: later changes go in new migrations, never edits here.
 *
 * - `credit_accounts`: one row per tenant; `balance` (available) and `reserved` (held by jobs that
 *   have not ended) can never go negative (CHECK), and every change takes the row's lock, so
 *   concurrent reservations can never overdraw.
 * - `credit_ledger`: append-only (a trigger refuses UPDATE and DELETE); at most one entry of each
 *   kind per job (a job is reserved, settled or refunded once).
 * - `jobs`: one row per analysis job; an Idempotency-Key names one job per tenant, an automatic
 *   analysis one job per (requesting event, type). A running job is leased to its worker
 *   (`lease_until`, renewed while it runs): another worker takes it over only once the lease ran
 *   out. The dispatcher reads jobs of every tenant that are not yet on the work queue
 *   (tenant-or-system policy); workers and the API act per tenant.
 * - `fingerprints`: the latest fingerprint of each analysed asset, with its distinct 32-bit values
 *   (`keys`, GIN-indexed) to find candidate duplicates before comparing.
 */
export const jobsAndCredits: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statements of [CREDITS, JOBS, FINGERPRINTS]) await sql.raw(statements).execute(db);
    await enableTenantRlsV1(db, 'analysis', 'credit_accounts');
    await enableTenantRlsV1(db, 'analysis', 'credit_ledger');
    await enableTenantOrSystemRlsV1(db, 'analysis', 'jobs');
    await enableTenantRlsV1(db, 'analysis', 'fingerprints');
  },
};
