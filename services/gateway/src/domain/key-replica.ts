import { performance } from 'node:perf_hooks';
import type { Pool } from 'pg';
import type { Logger } from '@catalog/platform';
import type { KeyCredentials } from '../persistence/api-keys.js';
import {
  activeKeyCredentialsOf,
  allActiveKeyCredentials,
  keyChangesAfter,
  latestKeyChange,
  type KeyChange,
} from '../persistence/key-changes.js';

/**
 * A gateway replica's in-memory copy of the API-key table (decision 0070): what authentication
 * needs of every active key, loaded at start and kept current from the key change log. It answers
 * only while it can prove it is current, i.e. while its latest successful read of the change log
 * STARTED less than `maxStalenessMs` ago: every change committed before that read is applied.
 * Otherwise (Postgres unreachable, the replica stopped) it answers nothing and the caller reads
 * the database, so no change is ignored for longer than the bound. It holds each key's current
 * secret only: the end of a rotation's grace period is a time, not a change in the log, so the
 * previous secret is checked in the database at each request, expiry included (decision 0120).
 */
export interface KeyReplica {
  /** The active key's credentials while the replica is current; undefined when not held or not current. */
  credentials(keyId: string): KeyCredentials | undefined;
  isCurrent(): boolean;
  /** What the replica holds for the key, current or not (diagnostics and tests). */
  held(keyId: string): KeyCredentials | undefined;
  /**
   * Applies the changes committed so far; resolves once they are (a read already under way is
   * followed by a fresh one). A failed read leaves the replica not current until one succeeds.
   */
  sync(): Promise<void>;
  /** Stops following the change log: the replica stops being current once the bound has passed. */
  stop(): Promise<void>;
}

export interface KeyReplicaDeps {
  pool: Pool;
  logger: Logger;
  /** The bound: longest time since the latest verified read of the change log. */
  maxStalenessMs: number;
  /** Subscribes to notices that the key table changed (the bus); returns the unsubscribe. */
  notices?: (onNotice: () => void) => () => void;
}

const CHANGES_PER_READ = 500;

/**
 * `run`, never twice at once: a call while it runs gets one further run after it (shared by every
 * call in the meantime), so whoever calls sees a run that started after the call.
 */
function coalesced(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const call = (): Promise<void> => {
    if (!running) {
      running = run().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return call();
      });
    return queued;
  };
  return call;
}

/** Calls `sync` every `intervalMs` (after the previous one ended) until the returned stop. */
function poll(sync: () => Promise<void>, intervalMs: number): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    void sync()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Starts a replica: loads every active key, then follows the change log (notices, and a poll at a quarter of the bound). */
export async function startKeyReplica(deps: KeyReplicaDeps): Promise<KeyReplica> {
  let byKey = new Map<string, KeyCredentials>();
  let verifiedAt = performance.now();
  let head = '0';
  /** Every active key, as a start; the change number is read first, so nothing after it is missed. */
  async function loadAll(): Promise<void> {
    const latest = await latestKeyChange(deps.pool);
    byKey = new Map((await allActiveKeyCredentials(deps.pool)).map((row) => [row.id, row]));
    head = latest;
  }
  await loadAll();
  let failing = false;
  let stopped = false;

  async function apply(changes: KeyChange[]): Promise<void> {
    const keyIds = new Set(changes.flatMap((change) => (change.key_id ? [change.key_id] : [])));
    const organizationIds = new Set(changes.flatMap((change) => (change.organization_id ? [change.organization_id] : [])));
    const fresh = await activeKeyCredentialsOf(deps.pool, [...keyIds], [...organizationIds]);
    for (const [id, held] of byKey) if (keyIds.has(id) || organizationIds.has(held.organization_id)) byKey.delete(id);
    for (const row of fresh) byKey.set(row.id, row);
    head = changes[changes.length - 1]!.seq;
  }

  const sync = coalesced(async () => {
    if (stopped) return;
    const started = performance.now();
    try {
      for (;;) {
        const { prunedThrough, changes } = await keyChangesAfter(deps.pool, head, CHANGES_PER_READ);
        if (BigInt(prunedThrough) > BigInt(head)) {
          // Changes this replica had not applied were pruned (it was cut off longer than the log's retention).
          deps.logger.warn({ head, prunedThrough }, 'the API-key change log was pruned past this replica; reloading every key');
          await loadAll();
          continue;
        }
        if (changes.length > 0) await apply(changes);
        if (changes.length < CHANGES_PER_READ) break;
      }
      verifiedAt = started;
      if (failing) deps.logger.info('the API-key replica is current again');
      failing = false;
    } catch (error) {
      verifiedAt = Number.NEGATIVE_INFINITY;
      if (!failing) deps.logger.warn({ err: error }, 'the API-key replica cannot read the change log; keys are read from the database');
      failing = true;
      throw error;
    }
  });
  const stopPolling = poll(sync, Math.max(10, Math.floor(deps.maxStalenessMs / 4)));
  const unsubscribe = deps.notices?.(() => void sync().catch(() => undefined));

  const isCurrent = (): boolean => performance.now() - verifiedAt < deps.maxStalenessMs;
  return {
    credentials: (keyId) => (isCurrent() ? byKey.get(keyId) : undefined),
    isCurrent,
    held: (keyId) => byKey.get(keyId),
    sync,
    async stop() {
      stopped = true;
      stopPolling();
      unsubscribe?.();
      await sync().catch(() => undefined); // waits for a read under way; starts none
    },
  };
}
