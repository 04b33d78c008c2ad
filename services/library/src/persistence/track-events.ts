import { recordSeparateEvents, registeredEvent, type Transaction } from '@catalog/platform';
import type { LibraryDb } from './tables.js';

export type TrackEventType = 'track.added' | 'track.updated' | 'track.removed';

/** A `track.*` event of one track. */
export interface TrackEvent {
  entityId: string;
  dmrn: string | null;
  type: TrackEventType;
  data: Record<string, unknown>;
}

/**
 * Records `track.*` events of the library product (decision 0103) in the outbox of the transaction
 * that changed the tracks, in one statement, each its own batch: resource the track (its entity's
 * id), dmrn the entity's, data checked against the registry; the source system is the library.
 */
export async function recordTrackEvents(trx: Transaction<LibraryDb>, tenantId: string, events: readonly TrackEvent[]): Promise<void> {
  await recordSeparateEvents(
    trx,
    'library',
    { tenantId, sourceSystem: 'library' },
    events.map((e) => registeredEvent(e.type, { resourceId: e.entityId, dmrn: e.dmrn, data: e.data })),
  );
}
