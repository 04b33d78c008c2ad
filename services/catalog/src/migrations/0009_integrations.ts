import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantOrSystemRlsV1 } from '@catalog/platform';

/**
 * Integrations (decisions 0132, 0133): the external systems a tenant connects, named uniquely per
 * tenant (the name is the source system of the API keys bound to it). `health_status` is the
 * status last recorded (by a report, or by the heartbeat sweep), `health_since` when it became so;
 * `heartbeat_due_at` is when the integration lapses without another report (null: no heartbeat),
 * which the sweep's partial index finds. Under the tenant-or-system policy, like the outbox: bound
 * to a tenant, code sees its own rows; the heartbeat sweep, outside any tenant, every row.
 * Frozen in time.
 */
export const integrations: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE catalog.integrations (
           id uuid PRIMARY KEY,
           tenant_id uuid NOT NULL,
           name text NOT NULL,
           kind text NOT NULL CHECK (kind IN ('playout', 'other')),
           system text,
           heartbeat_seconds integer CHECK (heartbeat_seconds > 0),
           health_status text NOT NULL DEFAULT 'unknown' CHECK (health_status IN ('unknown', 'healthy', 'degraded', 'down')),
           health_message text,
           health_since timestamptz NOT NULL DEFAULT now(),
           last_report_at timestamptz,
           heartbeat_due_at timestamptz,
           created_at timestamptz NOT NULL DEFAULT now(),
           updated_at timestamptz NOT NULL DEFAULT now()
         );
         CREATE UNIQUE INDEX integrations_tenant_name_key ON catalog.integrations (tenant_id, name);
         CREATE INDEX integrations_tenant_id_idx ON catalog.integrations (tenant_id, id);
         CREATE INDEX integrations_heartbeat_due_idx ON catalog.integrations (heartbeat_due_at)
           WHERE heartbeat_due_at IS NOT NULL AND health_status <> 'down';`,
      )
      .execute(db);
    await enableTenantOrSystemRlsV1(db, 'catalog', 'integrations');
  },
};
