import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Each feed row keeps the JSON text of its public envelope (`body`), which feed pages are made of
 * (decision 0034). Rows stored before are given theirs here, written as the feed writer writes
 * it (`JSON.stringify` of the envelope; Postgres escapes strings as JSON.stringify does, and only
 * the spacing inside `data` differs). The owner is subject to the feed's row-level security,
 * which has no UPDATE policy, so it is lifted for the backfill inside this migration's
 * transaction. Frozen in time.
 */
export const feedBody: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE events.feed ADD COLUMN body text`.execute(db);
    await sql`ALTER TABLE events.feed NO FORCE ROW LEVEL SECURITY`.execute(db);
    await sql`
      UPDATE events.feed f SET body = concat(
        '{"id":"', f.id,
        '","type":', to_json(f.type),
        ',"occurredAt":"', to_char(f.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        '","product":', to_json(f.product),
        ',"resourceKind":', to_json(f.resource_kind),
        ',"resourceId":', coalesce('"' || f.resource_id || '"', 'null'),
        ',"dmrn":', coalesce(to_json(f.dmrn)::text, 'null'),
        ',"sourceSystem":', to_json(f.source_system),
        ',"batchId":"', f.batch_id,
        '","schemaVersion":', f.schema_version,
        ',"data":', f.data,
        '}')`.execute(db);
    await sql`ALTER TABLE events.feed FORCE ROW LEVEL SECURITY`.execute(db);
    await sql`ALTER TABLE events.feed ALTER COLUMN body SET NOT NULL`.execute(db);
  },
};
