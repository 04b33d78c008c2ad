import { runTransaction, sql, type BusEvent, type Kysely } from '@catalog/platform';
import type { EventsDb } from './tables.js';

/** Where the feed writer stands in one incarnation of the events stream. */
export interface StreamPosition {
  streamCreated: string;
  lastSeq: number;
}

/** An event to store with the JSON text of its public envelope (`JSON.stringify(envelopeOf(event))`). */
export interface StoredEvent {
  event: BusEvent;
  body: string;
}

/** Another writer moved the position since it was read: re-read it and retry. */
export class PositionMovedError extends Error {
  constructor() {
    super('the feed position moved under this writer');
  }
}

/**
 * Reads the writer's position, creating it for a new consumer. When the stream is a new
 * incarnation (it was recreated, e.g. after the NATS store was lost), its sequence numbers start
 * again from 1, so the position restarts at 0; events already in the feed are not stored twice.
 */
export async function loadPosition(
  db: Kysely<EventsDb>,
  consumer: string,
  streamCreated: string,
): Promise<StreamPosition & { reset: boolean }> {
  await db
    .insertInto('stream_position')
    .values({ consumer, stream_created: streamCreated, last_seq: 0 })
    .onConflict((oc) => oc.column('consumer').doNothing())
    .execute();
  const row = await db
    .selectFrom('stream_position')
    .select(['stream_created', 'last_seq'])
    .where('consumer', '=', consumer)
    .executeTakeFirstOrThrow();
  if (row.stream_created === streamCreated) return { streamCreated, lastSeq: Number(row.last_seq), reset: false };
  await db
    .updateTable('stream_position')
    .set({ stream_created: streamCreated, last_seq: 0, updated_at: sql<Date>`now()` })
    .where('consumer', '=', consumer)
    .where('stream_created', '=', row.stream_created)
    .execute();
  return { streamCreated, lastSeq: 0, reset: true };
}

/**
 * Inserts events into the feed and advances the position in one transaction. Each row keeps the
 * JSON text of its public envelope (`body`), which feed pages are made of. A redelivered or
 * re-published event (same id, the feed's only unique key) is stored once. `ON CONFLICT` names no
 * target on purpose: a target needs SELECT on the table, which row-level security would then check
 * against the (absent) reader tenant. The position update only applies from the
 * position this writer read, so two writers can never both apply the same range. The rows are
 * serialised before the transaction begins: while it is open (it holds an xid), every feed page
 * and outbox relay of the cluster waits behind it (decision 0030); nothing in it waits on the
 * network but Postgres.
 */
export async function storeEvents(
  db: Kysely<EventsDb>,
  consumer: string,
  from: StreamPosition,
  toSeq: number,
  events: StoredEvent[],
): Promise<void> {
  const rows = events.length === 0 ? null : JSON.stringify(events.map(({ event, body }) => ({ ...event, body })));
  await runTransaction(db, async (trx) => {
    const moved = await trx
      .updateTable('stream_position')
      .set({ last_seq: toSeq, updated_at: sql<Date>`now()` })
      .where('consumer', '=', consumer)
      .where('stream_created', '=', from.streamCreated)
      .where('last_seq', '=', String(from.lastSeq))
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new PositionMovedError();
    if (rows === null) return;
    await sql`
      insert into events.feed
        (id, tenant_id, product, type, occurred_at, resource_kind, resource_id, dmrn, source_system, batch_id, schema_version, data, body)
      select e.id, e."tenantId", e.product, e.type, e."occurredAt", e."resourceKind", e."resourceId", e.dmrn,
             e."sourceSystem", e."batchId", e."schemaVersion", e.data, e.body
        from jsonb_to_recordset(${rows}::jsonb) as e(
          id uuid, "tenantId" uuid, product text, type text, "occurredAt" timestamptz, "resourceKind" text,
          "resourceId" uuid, dmrn text, "sourceSystem" text, "batchId" uuid, "schemaVersion" integer, data jsonb, body text)
      on conflict do nothing`.execute(trx);
  });
}
