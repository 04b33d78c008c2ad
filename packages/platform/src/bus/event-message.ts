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

/**
 * The public envelope of an event of the stream: the tenant left out, the fields in the
 * interface's order and `occurredAt` as `Date.toISOString()` writes it. The feed stores
 * `JSON.stringify` of it with each event and serves that text as it is.
 */
export function envelopeOf(event: BusEvent): EventEnvelope {
  return {
    id: event.id,
    type: event.type,
    occurredAt: new Date(event.occurredAt).toISOString(),
    product: event.product,
    resourceKind: event.resourceKind,
    resourceId: event.resourceId,
    dmrn: event.dmrn,
    sourceSystem: event.sourceSystem,
    batchId: event.batchId,
    schemaVersion: event.schemaVersion,
    data: event.data,
  };
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
