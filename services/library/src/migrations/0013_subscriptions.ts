import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * `library.subscriptions` (decision 0149): whether the library last found each tenant subscribed
 * to the library product (the gateway's answer), so that a tenant whose events it skipped is caught
 * up (its tracks rebuilt from the catalog) once it subscribes. Frozen in time.
 */
export const subscriptions: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE library.subscriptions (
        tenant_id uuid PRIMARY KEY,
        active boolean NOT NULL,
        changed_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
    await enableTenantRlsV1(db, 'library', 'subscriptions');
  },
};
