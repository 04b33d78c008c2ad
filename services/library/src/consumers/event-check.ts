import { eventTypes, schemaValidator, type ValidationIssue } from '@catalog/contracts';
import { AppError, type BusEvent } from '@catalog/platform';

/** Resource kinds whose events' data the projection reads: the entity an event is about, a file's status, a relation's ends. */
const DATA_READ: ReadonlySet<string> = new Set(['version', 'asset', 'analysis', 'relation', 'assignment']);

const validators = new Map<string, (value: unknown) => ValidationIssue[]>(
  eventTypes.filter((d) => DATA_READ.has(d.resourceKind)).map((d) => [d.type, schemaValidator(d.data)]),
);

/**
 * Refuses a catalog event whose data the projection would read but that does not match its
 * registered schema (decision 0114): a 422 `invalid_event`, a failure of the message, so the
 * consumer parks it after its attempts instead of applying what it says. Events of other types
 * (entities, whose data the projection does not read) pass.
 */
export function checkCatalogEvent(event: BusEvent): void {
  const validate = validators.get(event.type);
  if (!validate) return;
  const issues = validate(event.data);
  if (issues.length > 0) {
    throw new AppError(422, 'invalid_event', `${event.type} does not match its registered schema`, { issues: issues.slice(0, 5) });
  }
}
