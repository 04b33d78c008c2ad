import { AppError, conflict, newId, sleep, type ErrorPayload, type Logger } from '@catalog/platform';
import type { Pool } from 'pg';
import { claimKey, readKey, releaseKey, storeAnswer, type KeyName, type KeyRow } from '../persistence/idempotency.js';
import type { AnswerCipher } from './answer-cipher.js';

/** How the gateway keeps Idempotency-Keys (decision 0119). */
export interface IdempotencyStore {
  pool: Pool;
  cipher: AnswerCipher;
  logger: Logger;
  /** How long a key names its request and answer (24 h at least). */
  retentionMs: number;
  /** How long a running request holds its key; past it, a retry takes the key over. */
  leaseMs: number;
  /** How long a retry waits for the first request with its key to end before 409 in progress. */
  waitMs: number;
}

/** An operation's answer, as the client gets it. A 4xx is thrown (AppError) and kept as well. */
export interface Answer {
  status: number;
  /** JSON text, or null for no body. */
  json: string | null;
  headers: Record<string, string>;
}

/** What is sealed in a key's row: the answer, or the 4xx error it threw. */
type Kept = { answer: Answer } | { error: ErrorPayload };

/** The answer to give, or the 4xx to throw; `replayed` when it is the first request's, kept. */
export interface Outcome {
  answer?: Answer;
  error?: AppError;
  replayed: boolean;
}

/** A request named by an Idempotency-Key: where the key lives and what the request was. */
export interface NamedRequest extends KeyName {
  /** sha256 of the method, path, query and canonical body. */
  fingerprint: Buffer;
}

const POLL_MS = [25, 50, 100, 200];

/**
 * Runs `run` once per key (decision 0119): the first request with a key claims it and runs; its
 * answer (2xx, or a 4xx it threw) is kept and every later request with the key and the same
 * fingerprint gets it (`replayed`); one that comes while the first still runs waits for it, up to
 * `waitMs`, then 409 idempotency_key_in_progress. The key with another fingerprint is 409
 * idempotency_key_reused. A 5xx or a 429 (or any other failure) keeps nothing: the key is free again. No
 * transaction is open while `run` runs (claim and store are one statement each).
 */
export async function idempotently(store: IdempotencyStore, request: NamedRequest, run: () => Promise<Answer>): Promise<Outcome> {
  const deadline = Date.now() + store.waitMs;
  const claim = newId();
  for (let attempt = 0; ; attempt += 1) {
    if (await claimKey(store.pool, request, { fingerprint: request.fingerprint, claim }, store)) {
      return { ...outcomeOf(await runClaimed(store, request, claim, run)), replayed: false };
    }
    const row = await readKey(store.pool, request);
    if (!row) continue; // released (the first request failed) or pruned meanwhile: claim it again
    if (!row.fingerprint.equals(request.fingerprint)) {
      throw conflict('idempotency_key_reused', 'this Idempotency-Key was used for another request; use a new key for a new request');
    }
    if (row.state === 'done') return { ...outcomeOf(replay(store, request, row)), replayed: true };
    if (Date.now() >= deadline) {
      throw conflict('idempotency_key_in_progress', 'the first request with this Idempotency-Key is still running; retry later');
    }
    await sleep(Math.min(POLL_MS[Math.min(attempt, POLL_MS.length - 1)]!, Math.max(deadline - Date.now(), 1)));
  }
}

async function runClaimed(store: IdempotencyStore, name: NamedRequest, claim: string, run: () => Promise<Answer>): Promise<Kept> {
  let kept: Kept;
  try {
    kept = { answer: await run() };
  } catch (error) {
    // A 429 asks the client to retry later: kept, it would refuse that retry too.
    if (!(error instanceof AppError) || error.status >= 500 || error.status === 429) {
      // Not freed (the database is away): the claim lapses with its lease.
      await releaseKey(store.pool, name, claim).catch((cause: unknown) => warn(store, cause, 'an Idempotency-Key could not be freed'));
      throw error;
    }
    kept = { error: error.toJSON() };
  }
  const status = 'answer' in kept ? kept.answer.status : kept.error.status;
  const sealed = store.cipher.seal(Buffer.from(JSON.stringify(kept)), contextOf(name));
  // false: the lease ran out and a retry took the key over; its answer is the one kept. A failure
  // to keep it must not hide from the client what was done: the claim then lapses with its lease.
  await storeAnswer(store.pool, name, claim, { status, sealed }).catch((cause: unknown) =>
    warn(store, cause, 'the answer to an Idempotency-Key could not be kept'),
  );
  return kept;
}

function warn(store: IdempotencyStore, cause: unknown, message: string): void {
  store.logger.warn({ err: cause }, message);
}

function replay(store: IdempotencyStore, name: NamedRequest, row: KeyRow): Kept {
  const plain = store.cipher.open(row.answer!, contextOf(name));
  if (!plain) {
    throw conflict(
      'idempotency_key_unreadable',
      'the answer kept for this Idempotency-Key cannot be read (the gateway secret changed); use a new key for a new request',
    );
  }
  return JSON.parse(plain.toString('utf8')) as Kept;
}

function outcomeOf(kept: Kept): Omit<Outcome, 'replayed'> {
  if ('answer' in kept) return { answer: kept.answer };
  const { status, code, message, details } = kept.error;
  return { error: new AppError(status, code, message, details) };
}

function contextOf(name: KeyName): string {
  return `${name.scope}\n${name.key}`;
}
