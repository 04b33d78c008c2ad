import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The rate-limit windows become an unlogged table: they are written on every limited request
 * (each feed page), and a transaction that writes only unlogged tables commits without waiting
 * for a WAL flush. What is lost on a Postgres crash (or on a failover) is at most a minute of
 * admissions, so limits start afresh; no request is wrongly refused. Frozen in time.
 */
export const keyRateLimitsUnlogged: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE gateway.key_rate_limits SET UNLOGGED`.execute(db);
  },
};
