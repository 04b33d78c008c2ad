import { sql, type Transaction } from 'kysely';
import type { Pool } from 'pg';
import type { KeyCredentials } from './api-keys.js';
import type { GatewayDb } from './tables.js';

/** One committed change of the key table: a key's, or an organisation's plan (all its keys). */
export interface KeyChange {
  seq: string;
  key_id: string | null;
  organization_id: string | null;
}

/**
 * Records a change of a key or of an organisation's plan in the transaction that makes it
 * (decision 0070). Writers take one advisory lock first, held until they commit, so change numbers
 * are taken in commit order: a replica that has read change N has seen every change before N.
 */
export async function recordKeyChange(trx: Transaction<GatewayDb>, change: { keyId: string } | { organizationId: string }): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('gateway.api_key_changes'))`.execute(trx);
  await trx
    .insertInto('api_key_changes')
    .values('keyId' in change ? { key_id: change.keyId } : { organization_id: change.organizationId })
    .execute();
}

const CREDENTIALS_COLUMNS = `k.id, k.secret_hash, k.permissions, k.source_system, k.organization_id, o.products
             from gateway.api_keys k join gateway.organizations o on o.id = k.organization_id`;

/** The latest change number (0 before any): read BEFORE the keys, so nothing after it is missed. */
export async function latestKeyChange(pool: Pool): Promise<string> {
  const result = await pool.query<{ seq: string }>({
    name: 'gateway_latest_key_change',
    text: 'select coalesce(max(seq), 0)::text as seq from gateway.api_key_changes',
  });
  return result.rows[0]!.seq;
}

/** Every active key with what authentication needs (a replica's start). */
export async function allActiveKeyCredentials(pool: Pool): Promise<KeyCredentials[]> {
  const result = await pool.query<KeyCredentials>(`select ${CREDENTIALS_COLUMNS} where k.revoked_at is null`);
  return result.rows;
}

/** The changes after `seq`, oldest first, at most `limit`. */
export async function keyChangesAfter(pool: Pool, seq: string, limit: number): Promise<KeyChange[]> {
  const result = await pool.query<KeyChange>({
    name: 'gateway_key_changes_after',
    text: 'select seq::text as seq, key_id, organization_id from gateway.api_key_changes where seq > $1 order by seq limit $2',
    values: [seq, limit],
  });
  return result.rows;
}

/** The active keys among `keyIds` and of the organisations `organizationIds`, as they are now. */
export async function activeKeyCredentialsOf(pool: Pool, keyIds: string[], organizationIds: string[]): Promise<KeyCredentials[]> {
  const result = await pool.query<KeyCredentials>({
    name: 'gateway_active_key_credentials_of',
    text: `select ${CREDENTIALS_COLUMNS}
            where k.revoked_at is null and (k.id = any($1::uuid[]) or k.organization_id = any($2::uuid[]))`,
    values: [keyIds, organizationIds],
  });
  return result.rows;
}
