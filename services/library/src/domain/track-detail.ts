import type { Track } from '@catalog/contracts';
import { inTenantScope, notFound, type Kysely } from '@catalog/platform';
import type { LibraryDb } from '../persistence/tables.js';
import { findTrack } from '../persistence/tracks.js';

/** The track of an entity of the tenant (`getTrack`): its summary and detail, or a 404 when there is none. */
export async function readTrack(db: Kysely<LibraryDb>, tenantId: string, entityId: string): Promise<Track> {
  const row = await inTenantScope(db, tenantId, (scoped) => findTrack(scoped, tenantId, entityId));
  if (!row) throw notFound('track');
  return { ...row.summary, ...row.detail } as Track;
}
