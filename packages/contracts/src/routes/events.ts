import { EventsPage, ListEventsQuery, MAX_FEED_WAIT_SECONDS } from '../schemas/events.js';
import type { RouteDefinition } from './types.js';

/** The events feed, answered by the events service. No plan entitlement check (part 5). */
export const eventRoutes = [
  {
    operationId: 'listEvents',
    method: 'GET',
    path: '/api/v1/catalog/events',
    summary: "Poll the tenant's catalog events by cursor, in transaction order (at least once; dedupe on id)",
    tag: 'Events',
    service: 'events',
    auth: { kind: 'apiKey', product: 'catalog', permission: 'catalog:api', entitlement: false },
    query: ListEventsQuery,
    longPoll: { parameter: 'wait', maxSeconds: MAX_FEED_WAIT_SECONDS },
    rateLimit: { perMinute: 60 },
    success: { status: 200, description: 'a page of events', schema: EventsPage },
    errors: [400, 429],
  },
] as const satisfies readonly RouteDefinition[];
