import {
  sql,
  type Compilable,
  type Kysely,
  type OperationNodeSource,
  type QueryExecutorProvider,
  type RawBuilder,
  type Transaction,
} from 'kysely';
import { assertIdentifier } from '../db/database.js';
import { newId } from '../support/ids.js';

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
 * The INSERT of events into a schema's outbox, run on its own or embedded in a larger statement:
 * one statement with a VALUES row per event, in order, so their `seq` follows the list.
 */
function outboxInsert(
  table: string,
  context: OutboxContext,
  events: Array<{ id: string; event: EventRecord; batchId: string }>,
): RawBuilder<unknown> {
  const rows = events.map(
    ({ id, event, batchId }) => sql`(${id}, ${context.tenantId}, ${event.product ?? 'catalog'}, ${event.type}, ${event.resourceKind},
            ${event.resourceId}, ${event.dmrn ?? null}, ${context.sourceSystem}, ${batchId},
            ${event.schemaVersion ?? 1}, ${JSON.stringify(event.data)}::jsonb)`,
  );
  return sql`
    insert into ${sql.raw(table)}
      (id, tenant_id, product, type, resource_kind, resource_id, dmrn, source_system, batch_id, schema_version, data)
    values ${sql.join(rows)}`;
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
      await outboxInsert(table, context, [{ id, event, batchId }]).execute(trx);
      return id;
    },
  };
}

/**
 * Events of separate changes made in one transaction (one per track of a projection batch, say),
 * recorded in ONE statement whose text is the same for any number of events (they arrive as
 * arrays), in order, each with a batch id of its own as if recorded alone.
 */
export async function recordSeparateEvents<DB>(
  trx: Transaction<DB>,
  schema: string,
  context: OutboxContext,
  events: EventRecord[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => newId());
  const column = <T>(of: (event: EventRecord) => T) => events.map(of);
  await sql`
    insert into ${sql.raw(`${assertIdentifier(schema)}.outbox`)}
      (id, tenant_id, product, type, resource_kind, resource_id, dmrn, source_system, batch_id, schema_version, data)
    select e.id, ${context.tenantId}::uuid, e.product, e.type, e.resource_kind, e.resource_id, e.dmrn, ${context.sourceSystem}::text,
           e.batch_id, e.schema_version, e.data::jsonb
      from unnest(${ids}::uuid[], ${column((e) => e.product ?? 'catalog')}::text[], ${column((e) => e.type)}::text[],
                  ${column((e) => e.resourceKind)}::text[], ${column((e) => e.resourceId)}::uuid[], ${column((e) => e.dmrn ?? null)}::text[],
                  ${column(() => newId())}::uuid[], ${column((e) => e.schemaVersion ?? 1)}::integer[],
                  ${column((e) => JSON.stringify(e.data))}::text[])
           with ordinality as e(id, product, type, resource_kind, resource_id, dmrn, batch_id, schema_version, data, n)
     order by e.n`.execute(trx);
  return ids;
}

/**
 * A write and the events that describe it as ONE statement: the write (an INSERT/UPDATE/DELETE
 * … RETURNING query) and the outbox INSERT run as data-modifying CTEs, so they commit or fail
 * together (a statement is atomic) in a single round trip, with no BEGIN and COMMIT. Every
 * data-modifying CTE runs exactly once whether or not it is referenced; the events are one
 * INSERT (CTEs run in no defined order), so they keep the order given. For writes whose events
 * are known before they run (a creation with an id made here); the events share a batch id
 * (`batchId`, a new one unless given). Returns the write's RETURNING rows.
 */
export async function executeWithEvents<Row>(
  db: QueryExecutorProvider,
  schema: string,
  context: OutboxContext,
  write: Compilable<Row> & OperationNodeSource,
  events: EventRecord[],
  batchId: string = newId(),
): Promise<Row[]> {
  const table = `${assertIdentifier(schema)}.outbox`;
  const statement =
    events.length === 0
      ? sql<Row>`with w as (${write}) select * from w`
      : sql<Row>`with w as (${write}), e as (${outboxInsert(
          table,
          context,
          events.map((event) => ({ id: newId(), event, batchId })),
        )}) select * from w`;
  const { rows } = await statement.execute(db);
  return rows;
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
