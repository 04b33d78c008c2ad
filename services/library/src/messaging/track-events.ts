import { outboxFor, registeredEvent, type Transaction } from '@catalog/platform';
import type { LibraryDb } from '../persistence/tables.js';

export type TrackEventType = 'track.added' | 'track.updated' | 'track.removed';

/**
 * Records a `track.*` event of the library product (decision 0103) in the outbox of the
 * transaction that changed the track: resource the track (its entity's id), dmrn the entity's,
 * data checked against the registry; the source system is the library itself.
 */
export async function recordTrackEvent(
  trx: Transaction<LibraryDb>,
  track: { tenantId: string; entityId: string; dmrn: string | null },
  type: TrackEventType,
  data: Record<string, unknown>,
): Promise<void> {
  const outbox = outboxFor(trx, 'library', { tenantId: track.tenantId, sourceSystem: 'library' });
  await outbox.record(registeredEvent(type, { resourceId: track.entityId, dmrn: track.dmrn, data }));
}
