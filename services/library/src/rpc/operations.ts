import { operationById } from '@catalog/contracts';
import { defineOperation, type Kysely, type Operation } from '@catalog/platform';
import type { TrackCursors } from '../domain/track-cursor.js';
import { readTrack } from '../domain/track-detail.js';
import { listTracks } from '../domain/track-listing.js';
import type { LibraryDb } from '../persistence/tables.js';

/** Every operation the library answers on the bus (its entries of the operation table). */
export function libraryOperations(deps: { db: Kysely<LibraryDb>; cursors: TrackCursors }): Operation[] {
  return [
    defineOperation(operationById('listTracks'), async ({ query }, call, reply) => ({
      body: await listTracks(deps, call.tenantId, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('getTrack'), async ({ params }, call) => ({
      body: await readTrack(deps.db, call.tenantId, params.entityId),
    })),
  ];
}
