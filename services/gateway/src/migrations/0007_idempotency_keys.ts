import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Idempotency-Key of the create routes (decision 0119): one row per (scope, key), the scope an
 * organisation or `admin`. A request claims its key (`running`, `claim` names it until
 * `locked_until`), then stores its answer (`done`, `answer` encrypted). Rows are found by age for
 * the prune. Frozen in time.
 */
export const idempotencyKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE gateway.idempotency_keys (
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint bytea NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'done')),
        claim uuid,
        locked_until timestamptz,
        status smallint,
        answer bytea,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key),
        CHECK ((state = 'running') = (claim IS NOT NULL AND locked_until IS NOT NULL AND answer IS NULL)),
        CHECK ((state = 'done') = (status IS NOT NULL AND answer IS NOT NULL))
      )`.execute(db);
    await sql`CREATE INDEX idempotency_keys_created_at ON gateway.idempotency_keys (created_at)`.execute(db);
  },
};
