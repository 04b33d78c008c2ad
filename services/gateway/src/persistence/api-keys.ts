import type { Kysely, Selectable } from 'kysely';
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

export function findActiveKeyCredentials(db: Kysely<GatewayDb>, keyId: string): Promise<KeyCredentials | undefined> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('organizations as o', 'o.id', 'k.organization_id')
    .select(['k.id', 'k.secret_hash', 'k.permissions', 'k.source_system', 'k.organization_id', 'o.products'])
    .where('k.id', '=', keyId)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
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
