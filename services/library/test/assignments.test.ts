import type { Entity } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { createTestDatabase, testBusEvent, type TestDatabase } from '@catalog/testing';
import { applyCatalogEvent } from '../src/domain/projection.js';
import { listTracks } from '../src/domain/track-listing.js';
import { trackCursors } from '../src/domain/track-cursor.js';
import { catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/**
 * The catalog's assignment events keep the library's `integrationId` and `syncState` filters
 * (decision 0132): applied in the entity's lane and position, an older or repeated event changes
 * nothing, and they never read the entity's versions again.
 */
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('libraryassignments');
});
afterAll(async () => {
  await database.drop();
});

test('tracks are filtered by integration and sync state as the assignment events say, in event order', async () => {
  const runtime = await startTestLibrary(database);
  const [tenantId, entityId, integrationId] = [newId(), newId(), newId()];
  const entities = new Map([[tenantId, new Map([[entityId, { ...testEntity, id: entityId } as Entity]])]]);
  const { deps, calls } = catalogDouble(runtime.database.db, entities);
  const listing = { db: runtime.database.db, cursors: trackCursors('library-assignments-test-secret') };
  const ids = { integrationId, entityId };
  const event = (type: string, data: Record<string, unknown> = {}) =>
    testBusEvent({ tenantId, type, resourceKind: 'assignment', resourceId: newId(), data: { ...ids, ...data } });
  const stateChange = (state: string, previous: string) =>
    event('assignment.sync_state_changed', { state, previous, versionIds: [], reason: null });
  const at = (seq: number) => ({ stream: 's1', seq });
  const tracks = async (query: Record<string, string>) =>
    (await listTracks(listing, tenantId, query, 1_000_000)).tracks.map((t) => t.entityId);
  try {
    expect(
      await applyCatalogEvent(
        deps,
        testBusEvent({ tenantId, type: 'entity.created', resourceKind: 'entity', resourceId: entityId }),
        at(1),
      ),
    ).toBe('added');
    const versionsRead = calls.versions;
    await applyCatalogEvent(deps, event('assignment.created'), at(2));
    expect(await tracks({ integrationId, syncState: 'pending' })).toEqual([entityId]);
    await applyCatalogEvent(deps, stateChange('synced', 'pending'), at(3));
    expect(await tracks({ integrationId })).toEqual([entityId]);
    expect(await tracks({ syncState: 'synced' })).toEqual([entityId]);
    expect(await tracks({ integrationId, syncState: 'pending' })).toEqual([]);
    expect(await tracks({ integrationId: newId() })).toEqual([]);
    // A redelivered older event changes nothing.
    await applyCatalogEvent(deps, event('assignment.created'), at(2));
    expect(await tracks({ syncState: 'synced' })).toEqual([entityId]);
    await applyCatalogEvent(deps, event('assignment.deleted', { reason: 'unassigned' }), at(4));
    expect(await tracks({ integrationId })).toEqual([]);
    expect(calls.versions).toBe(versionsRead);
  } finally {
    await runtime.stop();
  }
});
