import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pool } from 'pg';
import type { ApiKeysTable, GatewayDb } from './tables.js';

/** A key's row, and its previous secret's end while that is still ahead (else null; decision 0120). */
export type ApiKeyRow = Selectable<ApiKeysTable> & { previous_key_expires_at: Date | null };

/** The previous secret's end while it is ahead by the database's clock (the one every replica shares), else null. */
const pendingExpiry = sql<Date | null>`case when previous_secret_expires_at > now() then previous_secret_expires_at end`.as(
  'previous_key_expires_at',
);

/** What authentication needs about a key, in one indexed lookup (a replica holds this of every key). */
export interface KeyCredentials {
  id: string;
  secret_hash: Buffer;
  permissions: string[];
  source_system: string | null;
  organization_id: string;
  products: string[];
}

/**
 * A key's credentials as the database has them at the moment of the request: with the hash of
 * the secret before the latest rotation while its grace period runs (null otherwise; decision 0120).
 */
export interface KeyCredentialsNow extends KeyCredentials {
  previous_secret_hash: Buffer | null;
}

/**
 * `KeyCredentialsNow` of the active key `$1`. The previous secret's expiry is checked here, at each
 * authentication, with the database's clock: an expiry is a time, not a change any replica is told of.
 */
const ACTIVE_KEY_CREDENTIALS_SQL = `select k.id, k.secret_hash, k.permissions, k.source_system, k.organization_id, o.products,
                  case when k.previous_secret_expires_at > now() then k.previous_secret_hash end as previous_secret_hash
             from gateway.api_keys k join gateway.organizations o on o.id = k.organization_id
            where k.id = $1 and k.revoked_at is null`;

/**
 * The lookup behind every authenticated request: a named (server-side prepared) statement on the
 * pool, so neither the query builder nor Postgres' parser and planner run per request.
 */
export async function findActiveKeyCredentials(pool: Pool, keyId: string): Promise<KeyCredentialsNow | undefined> {
  const result = await pool.query<KeyCredentialsNow>({
    name: 'gateway_active_key_credentials',
    text: ACTIVE_KEY_CREDENTIALS_SQL,
    values: [keyId],
  });
  return result.rows[0];
}

/** A per-key limit to apply to the request, and what the key must hold for the request to count. */
export interface AdmissionRequest {
  /** What is limited (the operation id): one window per key and scope. */
  scope: string;
  perMinute: number;
  /** The request counts only when the key may make it: this permission, and the product if `entitlement`. */
  permission: string;
  product: string;
  entitlement: boolean;
}

/** `admission`: null when the request was not counted (unknown or wrong secret, or not authorised). */
export interface KeyCredentialsWithAdmission extends KeyCredentialsNow {
  admission: { allowed: boolean; retryAfterSeconds: number } | null;
}

const RATE_LIMIT_WINDOW_SECONDS = 60;

/**
 * The key lookup and the per-key rate limit in ONE statement (one round trip): the key as
 * `findActiveKeyCredentials` reads it, and, when the presented secret's hash is the key's (or its
 * previous one's in its grace period) and the
 * key may make the request, its admission to a sliding window of 60 s per key and scope, shared by
 * all gateway replicas. The admission locks the key's row (concurrent requests of one key queue on
 * it), forgets admissions older than the window, and admits the request when fewer than the limit
 * remain; a refused request is not counted; times come from the database clock, so replicas with
 * skewed clocks agree. `retryAfterSeconds`: until the oldest admission leaves the window. Requests
 * with a wrong secret never count, so knowing a key id (it is in events' sourceSystem) does not let
 * anyone use up the key's limit. The commit does not wait for its WAL to reach the disk
 * (`synchronous_commit` off for this statement's own transaction, decision 0185): an admission is
 * no data, and the few a Postgres crash could forget only let a key make that many more requests
 * once; every other write of the gateway still waits. The caller still checks the secret in constant time and the
 * permissions itself, and must treat a missing admission of an authorised request as an error.
 */
export async function findKeyCredentialsAndAdmit(
  pool: Pool,
  keyId: string,
  secretHash: Buffer,
  limit: AdmissionRequest,
): Promise<KeyCredentialsWithAdmission | undefined> {
  const result = await pool.query<KeyCredentialsNow & { allowed: boolean | null; retry_after: number | null }>({
    name: 'gateway_active_key_credentials_and_admission',
    text: `with no_flush as (select set_config('synchronous_commit', 'off', true) as off),
           k as (${ACTIVE_KEY_CREDENTIALS_SQL}),
           a as (
             insert into gateway.key_rate_limits as l (key_id, scope, admitted, allowed)
             select k.id, $3::text, array[now()], $4::int > 0
               from k
              where $2::bytea in (k.secret_hash, k.previous_secret_hash) and $5::text = any(k.permissions) and (not $6::boolean or $7::text = any(k.products))
             on conflict (key_id, scope) do update set (admitted, allowed) = (
               select case when count(*) < $4::int then coalesce(array_agg(t order by t), '{}') || now()
                           else coalesce(array_agg(t order by t), '{}') end,
                      count(*) < $4::int
                 from unnest(l.admitted) as t
                where t > now() - make_interval(secs => ${RATE_LIMIT_WINDOW_SECONDS}))
             returning allowed,
                       ceil(extract(epoch from (admitted[1] + make_interval(secs => ${RATE_LIMIT_WINDOW_SECONDS}) - now())))::int as retry_after)
           select k.*, a.allowed, a.retry_after from k left join a on true cross join no_flush`,
    values: [keyId, secretHash, limit.scope, limit.perMinute, limit.permission, limit.entitlement, limit.product],
  });
  const row = result.rows[0];
  if (!row) return undefined;
  const { allowed, retry_after: retryAfter, ...credentials } = row;
  return { ...credentials, admission: allowed === null ? null : { allowed, retryAfterSeconds: Math.max(1, retryAfter ?? 1) } };
}

export function insertApiKey(
  db: Kysely<GatewayDb>,
  row: { id: string; organization_id: string; name: string; secret_hash: Buffer; permissions: string[] },
): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().returning(pendingExpiry).executeTakeFirstOrThrow();
}

export function listActiveKeys(db: Kysely<GatewayDb>, organizationId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .select(pendingExpiry)
    .where('organization_id', '=', organizationId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The key's new secret. With a grace period, the secret it replaces stays valid until the period
 * ends (the database's clock) and a previous secret still in its own grace period is dropped: a key
 * has at most two secrets. Without one, any previous secret is dropped too (decision 0120).
 */
export function replaceSecret(
  db: Kysely<GatewayDb>,
  keyId: string,
  secretHash: Buffer,
  gracePeriodSeconds: number,
): Promise<ApiKeyRow | undefined> {
  const grace = gracePeriodSeconds > 0;
  return db
    .updateTable('api_keys')
    .set({
      secret_hash: secretHash,
      rotated_at: new Date(),
      // The right-hand side reads the row as it was before this update: the secret being replaced.
      previous_secret_hash: grace ? sql<Buffer>`secret_hash` : null,
      previous_secret_expires_at: grace ? sql<Date>`now() + make_interval(secs => ${gracePeriodSeconds})` : null,
    })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .returning(pendingExpiry)
    .executeTakeFirst();
}

export function revokeKey(db: Kysely<GatewayDb>, keyId: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: new Date(), previous_secret_hash: null, previous_secret_expires_at: null })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .returning(pendingExpiry)
    .executeTakeFirst();
}

/** The key's organisation while it is active (not revoked). */
export async function findActiveKeyOrganization(db: Kysely<GatewayDb>, keyId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('organization_id')
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row?.organization_id;
}

/** What a bound key's writes carry: its integration's name, and that integration. */
export interface SourceSystemBinding {
  name: string;
  integrationId: string;
}

/** Binds the active key (`null`: unbinds it); the key's row, or undefined when there is no such key. */
export function setSourceSystem(db: Kysely<GatewayDb>, keyId: string, binding: SourceSystemBinding | null): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ source_system: binding?.name ?? null, integration_id: binding?.integrationId ?? null })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .returning(pendingExpiry)
    .executeTakeFirst();
}
