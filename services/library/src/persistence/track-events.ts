import type { EventTypeName } from '@catalog/contracts';
import { outboxFor, type OutboxEvent, type Transaction } from '@catalog/platform';
import type { LibraryDb } from './tables.js';

export type TrackEventType = Extract<EventTypeName, `track.${string}`>;

/** A `track.*` event of one track: resource the track (its entity's id), dmrn the entity's. */
export type TrackEvent = OutboxEvent<TrackEventType>;

/**
 * Records `track.*` events of the library product (decision 0103) in the outbox of the transaction
 * that changed the tracks, in one statement, each its own batch (separate changes); the source
 * system is the library.
 */
export async function recordTrackEvents(trx: Transaction<LibraryDb>, tenantId: string, events: readonly TrackEvent[]): Promise<void> {
  await outboxFor(trx, 'library', { tenantId, sourceSystem: 'library' }, 'per-event').recordAll(events);
}
