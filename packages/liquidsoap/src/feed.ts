import type { FeedEvent } from '@catalog/sdk';

/** The feed's event types that can change what the playlist holds. */
export const FOLLOWED_TYPES = [
  'assignment.created',
  'assignment.deleted',
  'assignment.sync_state_changed',
  'markers.updated',
  'analysis.succeeded',
  'entity.updated',
] as const;

/** What the connector knows to decide whether an event concerns it. */
export interface Relevance {
  integrationId: string;
  isAssigned(entityId: string): boolean;
}

const stringOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The song an event asks the connector to look at again, or null. Its own reports (synced,
 * failed) change nothing; a pending one (a new primary) does. Markers, a loudness or cue_points
 * result and a new title or artist matter only for a song it plays.
 */
export function songOfEvent(event: FeedEvent, relevance: Relevance): string | null {
  const data = event.data;
  const entityId = stringOf(data.entityId) ?? (event.type === 'entity.updated' ? event.resourceId : null);
  if (entityId === null) return null;
  switch (event.type) {
    case 'assignment.created':
    case 'assignment.deleted':
      return data.integrationId === relevance.integrationId ? entityId : null;
    case 'assignment.sync_state_changed':
      return data.integrationId === relevance.integrationId && data.state === 'pending' ? entityId : null;
    case 'analysis.succeeded':
      return (data.type === 'loudness' || data.type === 'cue_points') && relevance.isAssigned(entityId) ? entityId : null;
    case 'markers.updated':
    case 'entity.updated':
      return relevance.isAssigned(entityId) ? entityId : null;
    default:
      return null;
  }
}
