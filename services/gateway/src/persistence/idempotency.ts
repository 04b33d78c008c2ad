import type { Pool } from 'pg';

/** Where an Idempotency-Key lives: its scope (an organisation, or `admin`) and the key. */
export interface KeyName {
  scope: string;
  key: string;
}

/** A key's row as another request with it sees it. */
export interface KeyRow {
  fingerprint: Buffer;
  state: 'running' | 'done';
  status: number | null;
  answer: Buffer | null;
}

const SECONDS = `make_interval(secs => $%::double precision / 1000)`;
const interval = (parameter: number): string => SECONDS.replace('%', String(parameter));

/**
 * Claims a key for the request `claim` (decision 0119), one statement, no transaction held: true
 * when the key was free, or its row is older than `retentionMs` (expired, whatever it named), or
 * it is still running for the same request past its lease (the gateway that ran it is gone); then
 * the row is this request's until `leaseMs` from now. False: another request has the key.
 */
export async function claimKey(
  pool: Pool,
  name: KeyName,
  request: { fingerprint: Buffer; claim: string },
  times: { leaseMs: number; retentionMs: number },
): Promise<boolean> {
  const result = await pool.query({
    name: 'gateway_claim_idempotency_key',
    text: `insert into gateway.idempotency_keys as k (scope, key, fingerprint, state, claim, locked_until)
           values ($1, $2, $3, 'running', $4, now() + ${interval(5)})
           on conflict (scope, key) do update
              set fingerprint = excluded.fingerprint, state = 'running', claim = excluded.claim,
                  locked_until = excluded.locked_until, status = null, answer = null, created_at = now()
            where k.created_at < now() - ${interval(6)}
               or (k.state = 'running' and k.locked_until < now() and k.fingerprint = excluded.fingerprint)
           returning 1`,
    values: [name.scope, name.key, request.fingerprint, request.claim, times.leaseMs, times.retentionMs],
  });
  return result.rowCount === 1;
}

/** The key's row, or undefined when there is none (never claimed, released, or pruned). */
export async function readKey(pool: Pool, name: KeyName): Promise<KeyRow | undefined> {
  const result = await pool.query<KeyRow>({
    name: 'gateway_read_idempotency_key',
    text: `select fingerprint, state, status, answer from gateway.idempotency_keys where scope = $1 and key = $2`,
    values: [name.scope, name.key],
  });
  return result.rows[0];
}

/**
 * Stores the answer of the request that holds the key's claim; false when it no longer holds it
 * (its lease ran out and a retry took the key over).
 */
export async function storeAnswer(pool: Pool, name: KeyName, claim: string, answer: { status: number; sealed: Buffer }): Promise<boolean> {
  const result = await pool.query({
    name: 'gateway_store_idempotency_answer',
    text: `update gateway.idempotency_keys
              set state = 'done', status = $4, answer = $5, claim = null, locked_until = null
            where scope = $1 and key = $2 and claim = $3`,
    values: [name.scope, name.key, claim, answer.status, answer.sealed],
  });
  return result.rowCount === 1;
}

/** Frees the key of a request that failed (5xx): a retry runs again. */
export async function releaseKey(pool: Pool, name: KeyName, claim: string): Promise<void> {
  await pool.query({
    name: 'gateway_release_idempotency_key',
    text: `delete from gateway.idempotency_keys where scope = $1 and key = $2 and claim = $3`,
    values: [name.scope, name.key, claim],
  });
}

const PRUNE_BATCH = 5_000;

/** Deletes the keys older than `retentionMs`, a batch per statement. Returns how many. */
export async function pruneKeys(pool: Pool, retentionMs: number): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await pool.query({
      name: 'gateway_prune_idempotency_keys',
      text: `delete from gateway.idempotency_keys where ctid = any(array(
               select ctid from gateway.idempotency_keys where created_at < now() - ${interval(1)} limit ${PRUNE_BATCH}))`,
      values: [retentionMs],
    });
    total += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < PRUNE_BATCH) return total;
  }
}
