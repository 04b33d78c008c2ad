/**
 * An event as it travels on the events stream: the public envelope plus the tenant it belongs to.
 * The relay publishes outbox rows in this shape; the events service stores them in the feed.
 */
export interface BusEvent {
  id: string;
  tenantId: string;
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
