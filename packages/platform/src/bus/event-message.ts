/** The public envelope of an event (part 6 of the interface), as clients read it in the feed. */
export interface EventEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  product: string;
  resourceKind: string;
  resourceId: string | null;
  dmrn: string | null;
  sourceSystem: string;
  batchId: string;
  schemaVersion: number;
  data: Record<string, unknown>;
}

/**
 * An event as it travels on the events stream: the public envelope plus the tenant it belongs to.
 * The relay publishes outbox rows in this shape; the events service stores them in the feed.
 */
export interface BusEvent extends EventEnvelope {
  tenantId: string;
}

/** The envelope's columns as the outbox and the feed store them. */
export interface EventEnvelopeRow {
  id: string;
  type: string;
  occurred_at: Date;
  product: string;
  resource_kind: string;
  resource_id: string | null;
  dmrn: string | null;
  source_system: string;
  batch_id: string;
  schema_version: number;
  data: Record<string, unknown>;
}

/** The envelope's columns read as text, to be spliced into JSON by `envelopeJson`. */
export interface EventEnvelopeTextRow extends Omit<EventEnvelopeRow, 'occurred_at' | 'data'> {
  /** ISO 8601 in UTC with milliseconds, as `Date.toISOString()` writes it. */
  occurred_at: string;
  /** The `data` jsonb as JSON text. */
  data: string;
}

/**
 * The select list that reads the envelope columns of a stored event (a row of an outbox or of the
 * feed, under table alias `alias`) as an `EventEnvelopeTextRow`: nothing for the driver to parse.
 */
export function envelopeTextColumnsSql(alias: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`not a table alias: ${alias}`);
  const a = alias;
  return `${a}.id, ${a}.type, to_char(${a}.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at,
          ${a}.product, ${a}.resource_kind, ${a}.resource_id, ${a}.dmrn, ${a}.source_system, ${a}.batch_id,
          ${a}.schema_version, ${a}.data::text as data`;
}

/** Strings JSON can carry between quotes as they are: no quote, backslash, control character or surrogate. */
const NEEDS_NO_ESCAPING = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A JSON string literal; ids, types and timestamps (nearly every field) skip JSON.stringify (3× faster). */
const str = (value: string | null): string => {
  if (value === null) return 'null';
  return NEEDS_NO_ESCAPING.test(value) ? `"${value}"` : JSON.stringify(value);
};

/**
 * The envelope of an event read as text, serialised as JSON: the same text as
 * `JSON.stringify(envelopeFromRow(row))` (up to the whitespace inside `data`), without parsing
 * `data` and serialising it again. For feed pages, which carry up to 500 events.
 */
export function envelopeJson(row: EventEnvelopeTextRow): string {
  return (
    `{"id":${str(row.id)},"type":${str(row.type)},"occurredAt":${str(row.occurred_at)},"product":${str(row.product)},` +
    `"resourceKind":${str(row.resource_kind)},"resourceId":${str(row.resource_id)},"dmrn":${str(row.dmrn)},` +
    `"sourceSystem":${str(row.source_system)},"batchId":${str(row.batch_id)},"schemaVersion":${Number(row.schema_version)},"data":${row.data}}`
  );
}

export function envelopeFromRow(row: EventEnvelopeRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    occurredAt: row.occurred_at.toISOString(),
    product: row.product,
    resourceKind: row.resource_kind,
    resourceId: row.resource_id,
    dmrn: row.dmrn,
    sourceSystem: row.source_system,
    batchId: row.batch_id,
    schemaVersion: row.schema_version,
    data: row.data,
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeBusEvent(event: BusEvent): Uint8Array {
  return encoder.encode(JSON.stringify(event));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const nullableString = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** Parses a message of the events stream; null when it is not a well-formed event. */
export function decodeBusEvent(data: Uint8Array): BusEvent | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const e = parsed as Record<string, unknown>;
  const ok =
    typeof e.id === 'string' &&
    UUID.test(e.id) &&
    typeof e.tenantId === 'string' &&
    UUID.test(e.tenantId) &&
    typeof e.type === 'string' &&
    typeof e.occurredAt === 'string' &&
    !Number.isNaN(Date.parse(e.occurredAt)) &&
    typeof e.product === 'string' &&
    typeof e.resourceKind === 'string' &&
    nullableString(e.resourceId) &&
    (e.resourceId === null || UUID.test(e.resourceId)) &&
    nullableString(e.dmrn) &&
    typeof e.sourceSystem === 'string' &&
    typeof e.batchId === 'string' &&
    UUID.test(e.batchId) &&
    Number.isInteger(e.schemaVersion) &&
    typeof e.data === 'object' &&
    e.data !== null &&
    !Array.isArray(e.data);
  return ok ? (e as unknown as BusEvent) : null;
}
