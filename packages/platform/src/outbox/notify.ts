import { sql, type Kysely } from 'kysely';
import { assertIdentifier } from '../db/database.js';

/** The LISTEN/NOTIFY channel on which a schema's outbox announces new rows to its relay. */
export function outboxChannel(schema: string): string {
  return `${assertIdentifier(schema)}_outbox`;
}

/**
 * What the outbox relay needs from a schema's outbox besides the table itself, for a migration of
 * that schema. Frozen in time: a later change is a new function used by a new migration.
 *
 * - A statement-level trigger that sends `NOTIFY <schema>_outbox` when rows are inserted. The
 *   notification is delivered at commit (and never for a rolled-back write), so the relay wakes
 *   up as soon as new events are readable instead of waiting for its next poll.
 * - An index on `published_at` of published rows, so pruning old rows does not scan the table.
 */
export async function createOutboxRelaySupportV1(db: Kysely<unknown>, schema: string): Promise<void> {
  const s = assertIdentifier(schema);
  const channel = outboxChannel(schema);
  await sql
    .raw(
      `CREATE FUNCTION ${s}.outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('${channel}', '');
         RETURN NULL;
       END $$;
       CREATE TRIGGER outbox_notify AFTER INSERT ON ${s}.outbox
         FOR EACH STATEMENT EXECUTE FUNCTION ${s}.outbox_notify();
       CREATE INDEX outbox_published_at ON ${s}.outbox (published_at) WHERE published_at IS NOT NULL;`,
    )
    .execute(db);
}
