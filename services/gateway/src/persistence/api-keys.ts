import type { Kysely, Selectable } from 'kysely';
import type { Pool } from 'pg';
import type { ApiKeysTable, GatewayDb } from './tables.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

/** What authentication needs about a key, in one indexed lookup. */
export interface KeyCredentials {
  id: string;
  secret_hash: Buffer;
  permissions: string[];
  source_system: string | null;
  organization_id: string;
  products: string[];
}

/**
 * The lookup behind every authenticated request: a named (server-side prepared) statement on the
 * pool, so neither the query builder nor Postgres' parser and planner run per request.
 */
export async function findActiveKeyCredentials(pool: Pool, keyId: string): Promise<KeyCredentials | undefined> {
  const result = await pool.query<KeyCredentials>({
    name: 'gateway_active_key_credentials',
    text: `select k.id, k.secret_hash, k.permissions, k.source_system, k.organization_id, o.products
             from gateway.api_keys k join gateway.organizations o on o.id = k.organization_id
            where k.id = $1 and k.revoked_at is null`,
    values: [keyId],
  });
  return result.rows[0];
}

export function insertApiKey(
  db: Kysely<GatewayDb>,
  row: { id: string; organization_id: string; name: string; secret_hash: Buffer; permissions: string[] },
): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export function listActiveKeys(db: Kysely<GatewayDb>, organizationId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function replaceSecret(db: Kysely<GatewayDb>, keyId: string, secretHash: Buffer): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ secret_hash: secretHash, rotated_at: new Date() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export function revokeKey(db: Kysely<GatewayDb>, keyId: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export function setSourceSystem(db: Kysely<GatewayDb>, keyId: string, name: string | null): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ source_system: name })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
