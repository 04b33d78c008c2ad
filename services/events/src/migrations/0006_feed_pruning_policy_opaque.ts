import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The pruner's policies of 0005 put `received_at < now() - 30 days` beside the tenant's own policy
 * (permissive policies are ORed), and the planner may use that arm: a prepared feed page with a
 * `types` filter got a generic plan that ORed the `received_at` index into a bitmap scan of every
 * row of the tenant's type (440 ms at 10 M events, not 1.3 ms). The same rule now sits in a PL/pgSQL
 * function, which the planner cannot look into or index: for a tenant's page the policy is only a
 * filter, true at once by its first arm. What the pruner may delete is unchanged. Frozen in time.
 */
export const feedPruningPolicyOpaque: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE FUNCTION events.feed_row_prunable(received timestamptz) RETURNS boolean
        LANGUAGE plpgsql STABLE AS $$
      BEGIN
        RETURN nullif(current_setting('app.tenant_id', true), '') IS NULL
           AND current_setting('app.feed_pruning', true) = 'on'
           AND received < now() - interval '30 days';
      END $$`.execute(db);
    await sql`ALTER POLICY feed_pruner_read ON events.feed USING (events.feed_row_prunable(received_at))`.execute(db);
    await sql`ALTER POLICY feed_pruner_delete ON events.feed USING (events.feed_row_prunable(received_at))`.execute(db);
  },
};
