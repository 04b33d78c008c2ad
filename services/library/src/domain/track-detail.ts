import type { Track } from '@catalog/contracts';
import { inTenantScope, notFound, type Kysely } from '@catalog/platform';
import type { LibraryDb } from '../persistence/tables.js';
import { findTrack } from '../persistence/tracks.js';
import { trackRelations } from './relation-projection.js';

/** The track of an entity of the tenant (`getTrack`): its summary, detail and relations, or a 404 when there is none. */
export async function readTrack(db: Kysely<LibraryDb>, tenantId: string, entityId: string): Promise<Track> {
  return inTenantScope(db, tenantId, async (scoped) => {
    const row = await findTrack(scoped, tenantId, entityId);
    if (!row) throw notFound('track');
    return { ...row.summary, ...row.detail, ...(await trackRelations(scoped, tenantId, entityId)) } as Track;
  });
}
