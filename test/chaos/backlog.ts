import pg from 'pg';
import { sleep } from '@catalog/platform';

/**
 * What of one tenant's events is still on its way, read straight from the fault test's own
 * Postgres (as its superuser): events the catalog recorded in its outbox, those not yet published
 * to the bus, and those the events service has stored in the feed.
 */
export interface Backlog {
  recorded: number;
  unpublished: number;
  stored: number;
}

export interface BacklogObserver {
  read(): Promise<Backlog>;
  /**
   * Polls until `inFlight` holds (events on their way at that moment) and returns that reading;
   * fails naming `label` after `timeoutMs`.
   */
  untilInFlight(label: string, inFlight: (backlog: Backlog) => boolean, timeoutMs: number): Promise<Backlog>;
  /** Polls until every recorded event is published and stored. */
  untilSettled(timeoutMs: number): Promise<Backlog>;
  close(): Promise<void>;
}

const QUERY = `
  select (select count(*) from catalog.outbox where tenant_id = $1)::int as recorded,
         (select count(*) from catalog.outbox where tenant_id = $1 and published_at is null)::int as unpublished,
         (select count(*) from events.feed where tenant_id = $1)::int as stored`;

export function backlogObserver(databaseUrl: string, tenantId: string): BacklogObserver {
  // One connection, replaced after Postgres restarts (the pool drops a broken client).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 2_000, statement_timeout: 2_000 });
  pool.on('error', () => undefined);
  const read = async (): Promise<Backlog> => (await pool.query<Backlog>(QUERY, [tenantId])).rows[0]!;

  const poll = async (
    until: (backlog: Backlog) => boolean,
    timeoutMs: number,
    intervalMs: number,
  ): Promise<Backlog | { last: Backlog | undefined }> => {
    const deadline = Date.now() + timeoutMs;
    let last: Backlog | undefined;
    while (Date.now() < deadline) {
      last = await read().catch(() => last);
      if (last && until(last)) return last;
      await sleep(intervalMs);
    }
    return { last };
  };

  return {
    read,
    async untilInFlight(label, inFlight, timeoutMs) {
      const found = await poll(inFlight, timeoutMs, 5);
      if ('last' in found)
        throw new Error(`no events in flight before ${label} within ${timeoutMs} ms (last reading ${JSON.stringify(found.last)})`);
      return found;
    },
    async untilSettled(timeoutMs) {
      const found = await poll((b) => b.unpublished === 0 && b.stored === b.recorded, timeoutMs, 200);
      if ('last' in found) throw new Error(`events still on their way after ${timeoutMs} ms: ${JSON.stringify(found.last)}`);
      return found;
    },
    close: () => pool.end(),
  };
}
