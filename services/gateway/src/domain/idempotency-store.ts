import { runPeriodically, type ServiceRuntime } from '@catalog/platform';
import type { GatewayConfig } from '../config.js';
import { pruneKeys } from '../persistence/idempotency.js';
import type { GatewayDb } from '../persistence/tables.js';
import { answerCipher } from './answer-cipher.js';
import type { IdempotencyStore } from './idempotency.js';

/**
 * The Idempotency-Keys of the create routes (decision 0119) and their prune. A retry waits for the
 * first request with its key as long as that one may wait for its service (RPC_TIMEOUT_MS, below
 * the client's idle timeout); the first holds its key twice that (and 5 s), so only a gateway that
 * stopped mid-request lets a retry take the key over. The kept answers are sealed with a key
 * derived from ADMIN_TOKEN, a secret every replica has.
 */
export function idempotencyStore(runtime: ServiceRuntime<GatewayDb>, config: GatewayConfig): IdempotencyStore {
  const pool = runtime.database.pool;
  const retentionMs = config.idempotencyKeyRetentionMs;
  runPeriodically(runtime, {
    name: 'Idempotency-Key prune',
    intervalMs: config.idempotencyKeyPruneIntervalMs,
    run: () => pruneKeys(pool, retentionMs),
  });
  return {
    pool,
    cipher: answerCipher(config.adminToken),
    logger: runtime.logger,
    retentionMs,
    waitMs: config.rpcTimeoutMs,
    leaseMs: 2 * config.rpcTimeoutMs + 5_000,
  };
}
