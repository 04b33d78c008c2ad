import type { ColumnType, Generated } from 'kysely';
import type { EventEnvelopeRow } from '@catalog/platform';

/**
 * One stored event of a tenant's feed (migrations 0001-0003): the envelope's columns, as in the
 * outbox. The writer inserts rows of every tenant in one statement from a JSON record set
 * (`storeEvents`); pages are read by one statement that joins their `body` (`feedPageStatement`).
 */
export interface FeedTable extends EventEnvelopeRow {
  /** The inserting transaction's id (xid8, as text): pages follow `(tx_id, id)` order. */
  tx_id: ColumnType<string, never, never>;
  tenant_id: string;
  /** The JSON text of the event's public envelope, which pages are made of (decision 0034). */
  body: string;
  received_at: Generated<Date>;
}

/** The feed writer's position in the events stream, one row per durable consumer. */
export interface StreamPositionTable {
  consumer: string;
  /** Creation time of the stream incarnation the sequence belongs to. */
  stream_created: string;
  /** int8: read as a string. */
  last_seq: ColumnType<string, number, number>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** The tables of the `events` schema as the service's queries see them. */
export interface EventsDb {
  feed: FeedTable;
  stream_position: StreamPositionTable;
}
