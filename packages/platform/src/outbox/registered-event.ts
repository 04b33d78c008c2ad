import { eventType, schemaValidator, type ValidationIssue } from '@catalog/contracts';
import type { EventRecord } from './outbox.js';

const dataValidators = new Map<string, (value: unknown) => ValidationIssue[]>();

/** What a service says of one event; the registry (contracts/events) says the rest. */
export interface RegisteredEventFacts {
  resourceId: string | null;
  dmrn: string | null;
  data: Record<string, unknown>;
}

/**
 * An event of the registry as the outbox stores it: product, resource kind and schema version from
 * the registry, `data` checked against the registered schema. A mismatch throws: a programming
 * error, not a client one (the event would break the published contract).
 */
export function registeredEvent(type: string, event: RegisteredEventFacts): EventRecord {
  const definition = eventType(type);
  const issues = eventDataIssues(type, event.data);
  if (issues.length > 0) throw new Error(`event ${type} does not match its registered schema: ${JSON.stringify(issues)}`);
  return {
    type,
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
