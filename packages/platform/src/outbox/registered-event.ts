import { eventType, schemaValidator, type EventData, type EventTypeName, type ValidationIssue } from '@catalog/contracts';

const dataValidators = new Map<string, (value: unknown) => ValidationIssue[]>();

/**
 * An event as a writer states it: a registered type, the resource it concerns and `data` typed by
 * the type's schema in the registry (contracts/events), so a payload that breaks the contract
 * does not compile. `OutboxEvent<'job.created' | 'job.failed'>` narrows it to some types.
 */
export type OutboxEvent<T extends EventTypeName = EventTypeName> = {
  [K in T]: { type: K; resourceId: string | null; dmrn: string | null; data: EventData<K> };
}[T];

/** An event as the outbox stores it: the writer's facts with what the registry says of its type. */
export interface EventRow {
  type: string;
  product: string;
  resourceKind: string;
  resourceId: string | null;
  dmrn: string | null;
  schemaVersion: number;
  data: unknown;
}

/**
 * The row of an event: product, resource kind and schema version from the registry, `data`
 * checked against the registered schema once more at run time (a value typed loosely upstream,
 * a spread of a row, still cannot slip through). A mismatch throws: a programming error, not a
 * client one (the event would break the published contract).
 */
export function eventRow(event: OutboxEvent): EventRow {
  const definition = eventType(event.type);
  const issues = eventDataIssues(event.type, event.data);
  if (issues.length > 0) throw new Error(`event ${event.type} does not match its registered schema: ${JSON.stringify(issues)}`);
  return {
    type: event.type,
    product: definition.product,
    resourceKind: definition.resourceKind,
    resourceId: event.resourceId,
    dmrn: event.dmrn,
    schemaVersion: definition.schemaVersion,
    data: event.data,
  };
}

/**
 * How `data` fails the registered schema of event type `type` (none: it matches), with the schema
 * compiled once a type. Throws for a type the registry does not know (`eventType`).
 */
export function eventDataIssues(type: string, data: unknown): ValidationIssue[] {
  let validate = dataValidators.get(type);
  if (!validate) {
    validate = schemaValidator(eventType(type).data);
    dataValidators.set(type, validate);
  }
  return validate(data);
}
