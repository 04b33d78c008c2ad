import { Type, type Static } from '@sinclair/typebox';
import { Cursor, Timestamp, Uuid } from './common.js';

/** One event of the feed (part 6 of the interface). */
export const FeedEvent = Type.Object({
  id: Uuid,
  type: Type.String({ description: 'event type; see docs/events.md' }),
  occurredAt: Timestamp,
  product: Type.String({ description: 'always `catalog` in the catalog feed' }),
  resourceKind: Type.String(),
  resourceId: Type.Union([Uuid, Type.Null()]),
  dmrn: Type.Union([Type.String(), Type.Null()], { description: 'the DMRN of the resource; null when it has none' }),
  sourceSystem: Type.String({ description: '`public-api:<keyId>`, or the name the key is bound to' }),
  batchId: Uuid,
  schemaVersion: Type.Integer({ minimum: 1 }),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'identifiers and small facts, never snapshots' }),
});
export type FeedEvent = Static<typeof FeedEvent>;

export const EventsPage = Type.Object({
  events: Type.Array(FeedEvent),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass as `after` once the page is processed; null on an empty page (keep the previous cursor)',
  }),
  hasMore: Type.Boolean({ description: 'another page was available when the request ran' }),
});
export type EventsPage = Static<typeof EventsPage>;

/** Longest a feed request may wait for an event (`wait`, decision 0159). */
export const MAX_FEED_WAIT_SECONDS = 30;

export const ListEventsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    types: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'comma-separated event types; an unknown type is a 400' }),
    ),
    after: Type.Optional(Cursor(1024, 'nextCursor of a previous page')),
    wait: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FEED_WAIT_SECONDS,
        default: 0,
        description:
          'long poll: with no event after the cursor yet, hold the request up to this many seconds and answer as soon as one is ' +
          'visible (an empty page when none came); one request against the rate limit however long it waits',
      }),
    ),
  },
  { additionalProperties: false },
);
