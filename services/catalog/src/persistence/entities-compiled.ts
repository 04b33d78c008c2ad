import type { CompiledQuery, Kysely } from 'kysely';
import { newId, withEventsStatement, type EventRecord, type OutboxContext } from '@catalog/platform';
import { insertEntitiesQuery, type EntityRow, type NewEntityRow } from './entities.js';
import type { CatalogDb } from './tables.js';

/**
 * Hot statements built and compiled ONCE (issue 15, item 2): the first call builds the statement
 * with placeholder arguments (`sentinels`, each a value no request sends) and compiles it; every
 * call then runs that SQL text with the placeholders' parameters replaced by its own arguments,
 * so no query builder, schema plugin or compiler runs per request (Postgres' parse and plan are
 * already once per connection: decision 0009). A builder must use every argument as a parameter
 * (never in the SQL text): a placeholder found in no parameter is an error at the first call.
 * The SQL depends only on the schema qualification every catalog database has.
 */
export function compiledOnce<Args extends Record<string, unknown>, Row>(
  sentinels: Args,
  build: (db: Kysely<CatalogDb>, args: Args) => CompiledQuery<Row>,
): (db: Kysely<CatalogDb>, args: Args) => Promise<Row[]> {
  let template: { compiled: CompiledQuery<Row>; slots: Array<[number, keyof Args]> } | undefined;
  return async (db, args) => {
    template ??= compileTemplate(db, sentinels, build);
    const parameters = template.compiled.parameters.slice();
    for (const [index, key] of template.slots) parameters[index] = args[key];
    const { rows } = await db.executeQuery<Row>({ ...template.compiled, parameters });
    return rows;
  };
}

function compileTemplate<Args extends Record<string, unknown>, Row>(
  db: Kysely<CatalogDb>,
  sentinels: Args,
  build: (db: Kysely<CatalogDb>, args: Args) => CompiledQuery<Row>,
): { compiled: CompiledQuery<Row>; slots: Array<[number, keyof Args]> } {
  const compiled = build(db, sentinels);
  const keys = Object.keys(sentinels) as Array<keyof Args>;
  const slots: Array<[number, keyof Args]> = [];
  compiled.parameters.forEach((parameter, index) => {
    const key = keys.find((candidate) => Object.is(sentinels[candidate], parameter));
    if (key !== undefined) slots.push([index, key]);
  });
  const unused = keys.filter((key) => !slots.some(([, used]) => used === key));
  if (unused.length > 0) throw new Error(`compiled statement does not take ${unused.join(', ')} as parameters`);
  return { compiled, slots };
}

/** The parameters of one entity's creation with its event (every one a parameter of the statement). */
// (`Pick` makes the interface's fields a type alias's, which the statement's parameter record needs.)
type EntityCreation = Pick<NewEntityRow, keyof NewEntityRow> & {
  sourceSystem: string;
  batchId: string;
  eventId: string;
  eventType: string;
  eventProduct: string;
  eventResourceKind: string;
  eventResourceId: string | null;
  eventDmrn: string | null;
  eventSchemaVersion: number;
  /** The event's `data` as JSON text. */
  eventData: string;
};

/** A placeholder argument no request sends. */
export const placeholder = (name: string): string => `compiled-once placeholder ${name} 5f0c2a`;

const insertEntityWithEventStatement = compiledOnce<EntityCreation, EntityRow>(
  {
    id: placeholder('id'),
    tenantId: placeholder('tenantId'),
    type: placeholder('type'),
    title: placeholder('title'),
    artist: placeholder('artist'),
    dmrn: placeholder('dmrn'),
    sourceSystem: placeholder('sourceSystem'),
    batchId: placeholder('batchId'),
    eventId: placeholder('eventId'),
    eventType: placeholder('eventType'),
    eventProduct: placeholder('eventProduct'),
    eventResourceKind: placeholder('eventResourceKind'),
    eventResourceId: placeholder('eventResourceId'),
    eventDmrn: placeholder('eventDmrn'),
    eventSchemaVersion: -5_000_001,
    // Parsed into the event at the first call; the outbox insert serialises it back to exactly this text.
    eventData: JSON.stringify({ data: placeholder('eventData') }),
  },
  (db, a) => {
    const event: EventRecord = {
      type: a.eventType,
      product: a.eventProduct,
      resourceKind: a.eventResourceKind,
      resourceId: a.eventResourceId,
      dmrn: a.eventDmrn,
      schemaVersion: a.eventSchemaVersion,
      data: JSON.parse(a.eventData) as Record<string, unknown>,
    };
    const write = insertEntitiesQuery(db, [
      { id: a.id, tenantId: a.tenantId, type: a.type, title: a.title, artist: a.artist, dmrn: a.dmrn },
    ]);
    const context = { tenantId: a.tenantId, sourceSystem: a.sourceSystem };
    return withEventsStatement<EntityRow>('catalog', context, write, [{ id: a.eventId, event }], a.batchId).compile(db);
  },
);

/**
 * One entity and its event in one statement, as `executeWithEvents` writes them, compiled once.
 * Run in the tenant's scope; returns the entity's row.
 */
export async function insertEntityWithEvent(
  db: Kysely<CatalogDb>,
  context: OutboxContext,
  row: NewEntityRow,
  event: EventRecord,
  batchId: string,
): Promise<EntityRow> {
  const [inserted] = await insertEntityWithEventStatement(db, {
    ...row,
    sourceSystem: context.sourceSystem,
    tenantId: context.tenantId,
    batchId,
    eventId: newId(),
    eventType: event.type,
    eventProduct: event.product ?? 'catalog',
    eventResourceKind: event.resourceKind,
    eventResourceId: event.resourceId,
    eventDmrn: event.dmrn ?? null,
    eventSchemaVersion: event.schemaVersion ?? 1,
    eventData: JSON.stringify(event.data),
  });
  return inserted!;
}
