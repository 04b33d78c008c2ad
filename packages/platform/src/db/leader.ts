import pg from 'pg';
import type { Logger } from '../observability/logger.js';
import { sleep } from '../support/sleep.js';
import { assertIdentifier } from './database.js';

export interface LeaderSettings {
  connectionString: string;
  /** Role the lease connection works as (the service's app role). */
  role: string;
  /** Name of the lease; every replica competing for the same work uses the same name. */
  lockName: string;
  logger: Logger;
  /** How often a replica that is not the leader tries again, and how often the leader checks its connection. */
  retryMs?: number;
}

export interface Leadership {
  /** The connection that holds the lease; usable for LISTEN. Never use it for long statements. */
  client: pg.Client;
  /** Aborted when the lease is lost (connection gone) or the runner stops. */
  signal: AbortSignal;
}

export interface LeaderRunner {
  stop(): Promise<void>;
}

/**
 * Runs `work` in at most one process at a time per `lockName`: each replica holds a dedicated
 * connection and tries a session-level advisory lock on it; the holder runs `work` until its
 * connection fails or `stop()` is called, then another replica takes over. A session advisory
 * lock holds no transaction open, so it never holds back snapshot xmin.
 */
export function runAsLeader(settings: LeaderSettings, work: (leadership: Leadership) => Promise<void>): LeaderRunner {
  const retryMs = settings.retryMs ?? 1_000;
  const role = assertIdentifier(settings.role);
  const stopping = new AbortController();
  const log = settings.logger.child({ lease: settings.lockName });

  const loop = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      const client = new pg.Client({ connectionString: settings.connectionString, application_name: `lease:${settings.lockName}` });
      const lost = new AbortController();
      const onStop = (): void => lost.abort();
      stopping.signal.addEventListener('abort', onStop, { once: true });
      client.on('error', (error) => {
        log.warn({ err: error }, 'lease connection failed');
        lost.abort();
      });
      client.on('end', () => lost.abort());
      try {
        await client.connect();
        await client.query(`SET ROLE ${role}`);
        let leader = false;
        while (!lost.signal.aborted && !leader) {
          const result = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as locked', [
            settings.lockName,
          ]);
          leader = result.rows[0]?.locked === true;
          if (!leader) await sleep(retryMs, lost.signal);
        }
        if (leader) {
          log.info('lease acquired');
          const watchdog = setInterval(() => {
            client.query('select 1').catch(() => lost.abort());
          }, retryMs);
          try {
            await work({ client, signal: lost.signal });
          } finally {
            clearInterval(watchdog);
            lost.abort();
            log.info('lease released');
          }
        }
      } catch (error) {
        if (!stopping.signal.aborted) log.warn({ err: error }, 'lease attempt failed');
      } finally {
        stopping.signal.removeEventListener('abort', onStop);
        // Closing the session releases the advisory lock.
        await client.end().catch(() => undefined);
      }
      if (!stopping.signal.aborted) await sleep(retryMs, stopping.signal);
    }
  };

  const running = loop();
  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
