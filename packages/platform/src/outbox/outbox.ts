import { sql, type Kysely, type Transaction } from 'kysely';
import { assertIdentifier } from '../db/database.js';
import { newId } from '../ids.js';

/** One event as a service records it; the relay publishes it later, exactly as stored. */
export interface EventRecord {
  type: string;
  resourceKind: string;
  resourceId: string | null;
  dmrn?: string | null;
  data: Record<string, unknown>;
  schemaVersion?: number;
  /** `catalog` unless the event belongs to another product (the library). */
  product?: string;
}

export interface OutboxContext {
  tenantId: string;
  sourceSystem: string;
}

export interface Outbox {
  readonly batchId: string;
  record(event: EventRecord): Promise<string>;
}

/**
 * An outbox bound to one transaction: every event it records commits or rolls back with the
 * write it describes. Events recorded through one Outbox share a batch id.
 */
export function outboxFor<DB>(trx: Transaction<DB>, schema: string, context: OutboxContext): Outbox {
  const table = `${assertIdentifier(schema)}.outbox`;
  const batchId = newId();
  return {
    batchId,
    async record(event) {
      const id = newId();
      await sql`
        insert into ${sql.raw(table)}
          (id, tenant_id, product, type, resource_kind, resource_id, dmrn, source_system, batch_id, schema_version, data)
        values (${id}, ${context.tenantId}, ${event.product ?? 'catalog'}, ${event.type}, ${event.resourceKind},
                ${event.resourceId}, ${event.dmrn ?? null}, ${context.sourceSystem}, ${batchId},
                ${event.schemaVersion ?? 1}, ${JSON.stringify(event.data)}::jsonb)`.execute(trx);
      return id;
    },
  };
}

/**
 * Creates the outbox table of a service schema. Frozen in time: a later change to the outbox is a
 * new function used by a new migration, never an edit of this one.
 *
 * `tx_id` is the writing transaction's id; the relay publishes rows in `(tx_id, seq)` order and
 * only below the oldest transaction still open, so a slow transaction can delay its neighbours'
 * events but never lets them overtake it.
 */
export async function createOutboxTableV1(db: Kysely<unknown>, schema: string): Promise<void> {
  const s = assertIdentifier(schema);
  await sql
    .raw(
      `CREATE TABLE ${s}.outbox (
         seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
         id uuid NOT NULL UNIQUE,
         tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
         tenant_id uuid NOT NULL,
         product text NOT NULL,
         type text NOT NULL,
         resource_kind text NOT NULL,
         resource_id uuid,
         dmrn text,
         source_system text NOT NULL,
         batch_id uuid NOT NULL,
         schema_version integer NOT NULL,
         data jsonb NOT NULL,
         occurred_at timestamptz NOT NULL DEFAULT now(),
         published_at timestamptz
       );
       CREATE INDEX outbox_unpublished ON ${s}.outbox (tx_id, seq) WHERE published_at IS NULL;`,
    )
    .execute(db);
}
