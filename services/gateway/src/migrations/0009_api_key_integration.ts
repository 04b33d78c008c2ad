import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A key is bound to an integration of its organisation by the integration's id (decision 0149),
 * kept beside the name its writes carry. Bindings to names the platform writes itself or that name
 * a key (`catalog`, `public-api:<keyId>`, …) were never an integration's: they are removed, so those
 * keys write as themselves again. Frozen in time.
 */
export const apiKeyIntegration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE gateway.api_keys ADD COLUMN integration_id uuid`.execute(db);
    await sql`
      UPDATE gateway.api_keys SET source_system = NULL
       WHERE lower(source_system) IN ('admin', 'gateway', 'catalog', 'asset', 'analysis', 'events', 'library')
          OR lower(source_system) LIKE 'public-api:%'
          OR lower(source_system) LIKE 'system:%'`.execute(db);
  },
};
