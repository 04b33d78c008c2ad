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

/**
 * The latest change number (0 before any; never below what was pruned): read BEFORE the keys, so
 * nothing after it is missed.
 */
export async function latestKeyChange(pool: Pool): Promise<string> {
  const result = await pool.query<{ seq: string }>({
    name: 'gateway_latest_key_change',
    text: `select greatest((select coalesce(max(seq), 0) from gateway.api_key_changes),
                            (select pruned_through from gateway.api_key_change_horizon))::text as seq`,
  });
  return result.rows[0]!.seq;
}

/** Every active key with what authentication needs (a replica's start). */
export async function allActiveKeyCredentials(pool: Pool): Promise<KeyCredentials[]> {
  const result = await pool.query<KeyCredentials>(`select ${CREDENTIALS_COLUMNS} where k.revoked_at is null`);
  return result.rows;
}

export interface KeyChangesRead {
  /** The highest change number pruned from the log when it was read. */
  prunedThrough: string;
  /** The changes after the asked number, oldest first. */
  changes: KeyChange[];
}

/**
 * The changes after `seq`, oldest first, at most `limit`, and in the same snapshot how far the
 * log was pruned: a reader whose `seq` is below `prunedThrough` may have lost changes.
 */
export async function keyChangesAfter(pool: Pool, seq: string, limit: number): Promise<KeyChangesRead> {
  const result = await pool.query<{ pruned_through: string } & { [K in keyof KeyChange]: KeyChange[K] | null }>({
    name: 'gateway_key_changes_after',
    text: `select h.pruned_through::text as pruned_through, c.seq::text as seq, c.key_id, c.organization_id
             from gateway.api_key_change_horizon h
             left join lateral (select seq, key_id, organization_id from gateway.api_key_changes
                                 where seq > $1 order by seq limit $2) c on true
            order by c.seq`,
    values: [seq, limit],
  });
  const changes = result.rows.flatMap((row) =>
    row.seq === null ? [] : [{ seq: row.seq, key_id: row.key_id, organization_id: row.organization_id }],
  );
  return { prunedThrough: result.rows[0]!.pruned_through, changes };
}

/**
 * Deletes the changes recorded more than `retentionMs` ago and raises the horizon to the highest
 * number deleted, in one transaction (decision 0073). Returns how many were deleted.
 */
export async function pruneKeyChanges(pool: Pool, retentionMs: number): Promise<number> {
  const result = await pool.query<{ deleted: string }>({
    name: 'gateway_prune_key_changes',
    text: `with doomed as (
             delete from gateway.api_key_changes where changed_at < now() - make_interval(secs => $1::double precision / 1000)
             returning seq
           ), raised as (
             update gateway.api_key_change_horizon
                set pruned_through = greatest(pruned_through, (select max(seq) from doomed))
              where exists (select 1 from doomed)
           )
           select count(*)::text as deleted from doomed`,
    values: [retentionMs],
  });
  return Number(result.rows[0]!.deleted);
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
