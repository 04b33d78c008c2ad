import { badRequest } from '@catalog/platform';
import { eventTypes, RESERVED_EVENT_TYPES } from '@catalog/contracts';

/** The product whose feed this service serves over `listEvents`. */
export const FEED_PRODUCT = 'catalog';

/** Types a client may name in `types`: every registered type of the product, and the reserved ones. */
const knownFeedTypes: ReadonlySet<string> = new Set([
  ...eventTypes.filter((e) => e.product === FEED_PRODUCT).map((e) => e.type),
  ...RESERVED_EVENT_TYPES,
]);

/**
 * Parses the `types` query parameter (comma-separated): null when absent (every type), otherwise
 * the distinct types named. An empty item or a type the feed does not know is a 400.
 */
export function parseTypesFilter(raw: unknown): string[] | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string')
    throw badRequest('invalid_query', 'types must be a comma-separated list of event types', { parameter: 'types' });
  const types = raw.split(',').map((t) => t.trim());
  if (types.some((t) => t === '')) {
    throw badRequest('invalid_query', 'types must be a comma-separated list of event types without empty items', { parameter: 'types' });
  }
  const unknown = [...new Set(types.filter((t) => !knownFeedTypes.has(t)))];
  if (unknown.length > 0) {
    throw badRequest('unknown_event_type', `unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
      parameter: 'types',
      unknownTypes: unknown,
    });
  }
  return [...new Set(types)];
}
