import type { ColumnType, Generated } from 'kysely';

/**
 * One stored event of a tenant's feed (migrations 0001-0003). The writer inserts rows of every
 * tenant in one statement from a JSON record set (`storeEvents`); pages are read by one statement
 * that joins their `body` (`feedPageStatement`).
 */
export interface FeedTable {
  /** The inserting transaction's id (xid8, as text): pages follow `(tx_id, id)` order. */
  tx_id: ColumnType<string, never, never>;
  id: string;
  tenant_id: string;
  product: string;
  type: string;
  occurred_at: Date;
  resource_kind: string;
  resource_id: string | null;
  dmrn: string | null;
  source_system: string;
  batch_id: string;
  schema_version: number;
  data: unknown;
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
