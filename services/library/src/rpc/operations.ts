import { operationById, type Track } from '@catalog/contracts';
import { defineOperation, inTenantScope, notFound, type Kysely, type Operation } from '@catalog/platform';
import type { TrackCursors } from '../domain/track-cursor.js';
import { listTracks } from '../domain/track-listing.js';
import { findTrack } from '../persistence/tracks.js';
import type { LibraryDb } from '../persistence/tables.js';

/** Every operation the library answers on the bus (its entries of the operation table). */
export function libraryOperations(deps: { db: Kysely<LibraryDb>; cursors: TrackCursors }): Operation[] {
  return [
    defineOperation(operationById('listTracks'), async ({ query }, call, reply) => ({
      body: await listTracks(deps, call.tenantId, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('getTrack'), async ({ params }, call) => {
      const row = await inTenantScope(deps.db, call.tenantId, (db) => findTrack(db, call.tenantId, params.entityId));
      if (!row) throw notFound('track');
      return { body: { ...row.summary, ...row.detail } as Track };
    }),
  ];
}
