import type { Assignment, Entity } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { createTestDatabase, testBusEvent, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { applyCatalogEvent } from '../src/domain/projection.js';
import { rebuildLibrary } from '../src/domain/rebuild.js';
import { listTracks } from '../src/domain/track-listing.js';
import { trackCursors } from '../src/domain/track-cursor.js';
import { catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/**
 * The catalog's assignment events keep the library's `integrationId` and `syncState` filters
 * (decision 0132): applied in the entity's lane and position, an older or repeated event changes
 * nothing, and they never read the entity's versions again.
 */
let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('libraryassignments');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

/** The `track.*` events the library recorded for a tenant, oldest first. */
async function trackEvents(tenantId: string): Promise<Array<{ type: string; resource_id: string; data: unknown }>> {
  const { rows } = await admin.query('select type, resource_id, data from library.outbox where tenant_id = $1 order by seq', [tenantId]);
  return rows;
}

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

test('an assignment event records no track.updated: the track shows no assignment, only the filters follow it (decision 0142)', async () => {
  const runtime = await startTestLibrary(database);
  const [tenantId, entityId, integrationId] = [newId(), newId(), newId()];
  const { deps } = catalogDouble(runtime.database.db, new Map([[tenantId, new Map([[entityId, { ...testEntity, id: entityId }]])]]));
  const event = (type: string, data: Record<string, unknown> = {}) =>
    testBusEvent({ tenantId, type, resourceKind: 'assignment', resourceId: newId(), data: { integrationId, entityId, ...data } });
  try {
    await applyCatalogEvent(deps, testBusEvent({ tenantId, type: 'entity.created', resourceKind: 'entity', resourceId: entityId }), {
      stream: 's1',
      seq: 1,
    });
    await applyCatalogEvent(deps, event('assignment.created'), { stream: 's1', seq: 2 });
    await applyCatalogEvent(
      deps,
      event('assignment.sync_state_changed', { state: 'synced', previous: 'pending', versionIds: [], reason: null }),
      {
        stream: 's1',
        seq: 3,
      },
    );
    expect((await trackEvents(tenantId)).map((e) => e.type)).toEqual(['track.added']);
  } finally {
    await runtime.stop();
  }
});

test('the rebuild adds the assignments the catalog lists that the library lacks, never undoing a state or removal its events applied', async () => {
  const runtime = await startTestLibrary(database);
  const tenantId = newId();
  const [lost, newer, removed, integrationId, otherIntegration] = [newId(), newId(), newId(), newId(), newId()];
  const songs = new Map([lost, newer, removed].map((id) => [id, { ...testEntity, id } as Entity]));
  const { deps } = catalogDouble(runtime.database.db, new Map([[tenantId, songs]]));
  const listing = { db: runtime.database.db, cursors: trackCursors('library-assignments-test-secret') };
  const tracks = async (query: Record<string, string>) =>
    (await listTracks(listing, tenantId, query, 1_000_000)).tracks.map((t) => t.entityId).sort();
  const event = (type: string, entityId: string, data: Record<string, unknown> = {}) =>
    testBusEvent({ tenantId, type, resourceKind: 'assignment', resourceId: newId(), data: { integrationId, entityId, ...data } });
  const synced = { state: 'synced', previous: 'pending', versionIds: [], reason: null };
  const assignment = (integration: string, entityId: string, syncState: Assignment['syncState']): Assignment => ({
    id: newId(),
    integrationId: integration,
    entityId,
    syncState,
    versionIds: [],
    externalId: null,
    error: null,
    stateChangedAt: '2026-01-01T00:00:00.000Z',
    syncedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  // The catalog's listing, read before the events the library applied of `newer` and `removed`.
  const listed = new Map([
    [
      integrationId,
      [
        assignment(integrationId, lost, 'synced'),
        assignment(integrationId, newer, 'pending'),
        assignment(integrationId, removed, 'pending'),
      ],
    ],
    [otherIntegration, [assignment(otherIntegration, lost, 'failed')]],
  ]);
  deps.catalog.integrationPage = async (tenant, after) =>
    tenant === tenantId && after === null ? { ids: [integrationId, otherIntegration], nextCursor: null } : { ids: [], nextCursor: null };
  // One assignment a page: the rebuild follows the pages.
  deps.catalog.assignmentPage = async (_tenant, integration, after) => {
    const all = listed.get(integration) ?? [];
    const k = after === null ? 0 : Number(after);
    return { assignments: all.slice(k, k + 1), nextCursor: k + 1 < all.length ? String(k + 1) : null };
  };
  try {
    let seq = 0;
    const at = () => ({ stream: 's1', seq: (seq += 1) });
    for (const id of [lost, newer, removed]) {
      await applyCatalogEvent(deps, testBusEvent({ tenantId, type: 'entity.created', resourceKind: 'entity', resourceId: id }), at());
    }
    await applyCatalogEvent(deps, event('assignment.created', newer), at());
    await applyCatalogEvent(deps, event('assignment.sync_state_changed', newer, synced), at());
    await applyCatalogEvent(deps, event('assignment.created', removed), at());
    await applyCatalogEvent(deps, event('assignment.deleted', removed, { reason: 'unassigned' }), at());
    const before = (await trackEvents(tenantId)).length;

    await rebuildLibrary(deps);
    expect(await tracks({ integrationId })).toEqual([lost, newer].sort());
    expect(await tracks({ integrationId, syncState: 'synced' })).toEqual([lost, newer].sort());
    expect(await tracks({ integrationId: otherIntegration, syncState: 'failed' })).toEqual([lost]);
    expect(await tracks({ syncState: 'pending' })).toEqual([]);
    // Only the filters changed: no track event.
    expect((await trackEvents(tenantId)).length).toBe(before);

    // The next event of a restored assignment replaces it, whatever its stream position.
    await applyCatalogEvent(deps, event('assignment.deleted', lost, { reason: 'unassigned' }), at());
    expect(await tracks({ integrationId })).toEqual([newer]);
  } finally {
    await runtime.stop();
  }
});
