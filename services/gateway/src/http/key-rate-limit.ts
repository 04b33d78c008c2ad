import { sql, tooManyRequests, type Kysely } from '@catalog/platform';
import type { GatewayDb } from '../persistence/tables.js';

export interface KeyRateLimit {
  /** Admits one request of `keyId` to `scope`, or throws 429 `rate_limited` with the seconds to wait. */
  take(keyId: string, scope: string, perMinute: number): Promise<void>;
}

const WINDOW_SECONDS = 60;

/**
 * Per-key limits declared on routes (`rateLimit`), shared by all gateway replicas through
 * Postgres: a sliding window of 60 s per key and scope. One statement admits or refuses a request:
 * it locks the key's row (concurrent requests of one key queue on it), forgets admissions older
 * than the window, and admits the request when fewer than the limit remain. Times come from the
 * database clock, so replicas with skewed clocks agree. A refused request is not counted, and
 * Retry-After is the time until the oldest admission leaves the window.
 */
export function keyRateLimit(db: Kysely<GatewayDb>): KeyRateLimit {
  return {
    async take(keyId, scope, perMinute) {
      const { rows } = await sql<{ allowed: boolean; retry_after: number }>`
        insert into gateway.key_rate_limits as l (key_id, scope, admitted, allowed)
        values (${keyId}, ${scope}, array[now()], ${perMinute} > 0)
        on conflict (key_id, scope) do update set (admitted, allowed) = (
          select case when count(*) < ${perMinute} then coalesce(array_agg(t order by t), '{}') || now()
                      else coalesce(array_agg(t order by t), '{}') end,
                 count(*) < ${perMinute}
            from unnest(l.admitted) as t
           where t > now() - make_interval(secs => ${WINDOW_SECONDS}))
        returning allowed,
                  ceil(extract(epoch from (admitted[1] + make_interval(secs => ${WINDOW_SECONDS}) - now())))::int as retry_after`.execute(db);
      const row = rows[0];
      if (row && !row.allowed) {
        throw tooManyRequests(`this API key may make ${perMinute} requests per minute here; retry later`, Math.max(1, row.retry_after));
      }
    },
  };
}
