import { EventsPage, ListEventsQuery, MAX_FEED_WAIT_SECONDS } from '../schemas/events.js';
import { ListTracksQuery, Track, TrackParams, TracksPage } from '../schemas/library.js';
import { libraryApi, type RouteDefinition } from './types.js';

/**
 * The library product (decision 0100): tracks answered by the library service, the library feed by
 * the events service. Every route needs `library:api` and the plan product `library` (402).
 */
export const libraryRoutes = [
  {
    operationId: 'listTracks',
    method: 'GET',
    path: '/api/v1/library/tracks',
    summary: 'Search and filter the tracks of the library (entities with a primary ONLINE audio version), keyset paginated',
    tag: 'Library',
    service: 'library',
    auth: libraryApi,
    query: ListTracksQuery,
    success: { status: 200, description: 'a page of tracks', schema: TracksPage },
    errors: [400],
  },
  {
    operationId: 'getTrack',
    method: 'GET',
    path: '/api/v1/library/tracks/{entityId}',
    summary: 'Read one track: entity facts, primary version per kind with markers and download path, analysis facts',
    tag: 'Library',
    service: 'library',
    auth: libraryApi,
    params: TrackParams,
    resources: { entityId: 'track' },
    success: { status: 200, description: 'the track', schema: Track },
    errors: [404],
  },
  {
    operationId: 'listLibraryEvents',
    method: 'GET',
    path: '/api/v1/library/events',
    summary: "Poll the tenant's library events (track.added, track.updated, track.removed) by cursor, in transaction order",
    tag: 'Library',
    service: 'events',
    auth: libraryApi,
    query: ListEventsQuery,
    longPoll: { parameter: 'wait', maxSeconds: MAX_FEED_WAIT_SECONDS },
    rateLimit: { perMinute: 60 },
    success: { status: 200, description: 'a page of library events', schema: EventsPage },
    errors: [400, 429],
  },
] as const satisfies readonly RouteDefinition[];
