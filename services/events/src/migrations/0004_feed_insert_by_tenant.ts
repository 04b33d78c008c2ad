import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The feed's insert policy allowed rows of any tenant whatever the transaction's tenant
 * (`WITH CHECK (true)`): the feed writer works outside any tenant's context (`app.tenant_id`
 * empty) and still inserts rows of every tenant, but code bound to one tenant now inserts only
 * that tenant's rows, as on every other tenant table (decision 0118). Frozen in time.
 */
export const feedInsertByTenant: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      ALTER POLICY feed_writer_insert ON events.feed
        WITH CHECK (nullif(current_setting('app.tenant_id', true), '') IS NULL
                    OR tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)`.execute(db);
  },
};
