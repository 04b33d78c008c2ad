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
import { eventRow, type EventRow, type OutboxEvent } from './registered-event.js';

/*
 * Two ways to record events, one rule each (decision 0156):
 * - inside a transaction: `outboxFor(trx, …).record(…)`, after the writes, in the same transaction;
 * - a write that is ONE statement and the whole unit of work, with no transaction open:
 *   `executeWithEvents(db, …)`, the write and its events in one statement.
 * Both take `OutboxEvent`s, whose `data` the registry's schemas type, and insert with one statement.
 */

export interface OutboxContext {
  tenantId: string;
  sourceSystem: string;
}

/**
 * The batch the events of an outbox share: a new id (the default), a given one (an import's
 * events carry its job id), or `per-event`: each event a batch of its own, for separate changes
 * made in one transaction (one per track of a projection batch, say).
 */
export type OutboxBatch = string | 'per-event';

export interface Outbox {
  /** Records one event; returns its id. */
  record(event: OutboxEvent): Promise<string>;
  /** Records events in order, in one statement; returns their ids. */
  recordAll(events: readonly OutboxEvent[]): Promise<string[]>;
}

/**
 * The INSERT of events into a schema's outbox, run on its own or embedded in a larger statement:
 * one statement whose text is the same for any number of events (they arrive as arrays, so the
 * pool names it once), rows in the order given, so their `seq` follows the list.
 */
function outboxInsert(
  schema: string,
  context: OutboxContext,
  events: ReadonlyArray<{ id: string; event: OutboxEvent }>,
  batch: OutboxBatch,
): RawBuilder<unknown> {
  const rows = events.map(({ id, event }) => ({ id, ...eventRow(event) }));
  const column = <T>(of: (row: EventRow & { id: string }) => T) => rows.map(of);
  const sharedBatchId = batch === 'per-event' ? null : batch;
  return sql`
    insert into ${sql.raw(`${assertIdentifier(schema)}.outbox`)}
      (id, tenant_id, product, type, resource_kind, resource_id, dmrn, source_system, batch_id, schema_version, data)
    select e.id, ${context.tenantId}::uuid, e.product, e.type, e.resource_kind, e.resource_id, e.dmrn, ${context.sourceSystem}::text,
           e.batch_id, e.schema_version, e.data::jsonb
      from unnest(${column((e) => e.id)}::uuid[], ${column((e) => e.product)}::text[], ${column((e) => e.type)}::text[],
                  ${column((e) => e.resourceKind)}::text[], ${column((e) => e.resourceId)}::uuid[], ${column((e) => e.dmrn)}::text[],
                  ${column(() => sharedBatchId ?? newId())}::uuid[], ${column((e) => e.schemaVersion)}::integer[],
                  ${column((e) => JSON.stringify(e.data))}::text[])
           with ordinality as e(id, product, type, resource_kind, resource_id, dmrn, batch_id, schema_version, data, n)
     order by e.n`;
}

/**
 * The outbox of one transaction: every event it records commits or rolls back with the writes of
 * that transaction. The events recorded through one Outbox share a batch id (see `OutboxBatch`).
 */
export function outboxFor<DB>(trx: Transaction<DB>, schema: string, context: OutboxContext, batch: OutboxBatch = newId()): Outbox {
  const recordAll = async (events: readonly OutboxEvent[]): Promise<string[]> => {
    const identified = events.map((event) => ({ id: newId(), event }));
    if (identified.length > 0) await outboxInsert(schema, context, identified, batch).execute(trx);
    return identified.map(({ id }) => id);
  };
  return {
    recordAll,
    async record(event) {
      const [id] = await recordAll([event]);
      return id!;
    },
  };
}

/**
 * A database handle that is not a transaction (`Transaction` says `isTransaction: true`); for a
 * transaction, a type whose name is the rule, so the compiler's error says it.
 */
type OutsideTransaction<D> = D extends { readonly isTransaction: true } ? 'in a transaction, record events with outboxFor' : D;

/**
 * A write and the events that describe it as ONE statement, for a write that is the whole unit of
 * work (no transaction open: a transaction records with `outboxFor`, after its writes): the write
 * (an INSERT/UPDATE/DELETE … RETURNING query) and the outbox INSERT run as data-modifying CTEs, so
 * they commit or fail together (a statement is atomic) in a single round trip, with no BEGIN and
 * COMMIT. Every data-modifying CTE runs exactly once whether or not it is referenced; the events
 * are one INSERT (CTEs run in no defined order), so they keep the order given. The events must be
 * known before the write runs (a creation with an id made here). Returns the write's RETURNING rows.
 */
export async function executeWithEvents<Row, D extends QueryExecutorProvider & { readonly isTransaction: boolean }>(
  db: OutsideTransaction<D>,
  schema: string,
  context: OutboxContext,
  write: Compilable<Row> & OperationNodeSource,
  events: readonly OutboxEvent[],
  batch: OutboxBatch = newId(),
): Promise<Row[]> {
  if (db.isTransaction) throw new Error('executeWithEvents runs outside a transaction; inside one, record with outboxFor');
  const statement =
    events.length === 0
      ? sql<Row>`with w as (${write}) select * from w`
      : sql<Row>`with w as (${write}), e as (${outboxInsert(
          schema,
          context,
          events.map((event) => ({ id: newId(), event })),
          batch,
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
