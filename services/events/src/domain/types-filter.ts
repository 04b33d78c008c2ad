import { badRequest } from '@catalog/platform';
import { eventTypes, RESERVED_EVENT_TYPES } from '@catalog/contracts';

/** Parses a feed's `types` query parameter. */
export type TypesFilter = (raw: unknown) => string[] | null;

/**
 * The `types` parser of one product's feed (comma-separated): null when absent (every type),
 * otherwise the distinct types named. An empty item, or a type that is neither a registered type
 * of the product nor a reserved one, is a 400.
 */
export function typesFilterOf(product: string): TypesFilter {
  const known: ReadonlySet<string> = new Set([
    ...eventTypes.filter((e) => e.product === product).map((e) => e.type),
    ...RESERVED_EVENT_TYPES,
  ]);
  return (raw) => {
    if (raw === undefined || raw === null) return null;
    if (typeof raw !== 'string')
      throw badRequest('invalid_query', 'types must be a comma-separated list of event types', { parameter: 'types' });
    const types = raw.split(',').map((t) => t.trim());
    if (types.some((t) => t === '')) {
      throw badRequest('invalid_query', 'types must be a comma-separated list of event types without empty items', { parameter: 'types' });
    }
    const unknown = [...new Set(types.filter((t) => !known.has(t)))];
    if (unknown.length > 0) {
      throw badRequest('unknown_event_type', `unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
        parameter: 'types',
        unknownTypes: unknown,
      });
    }
    return [...new Set(types)];
  };
}
