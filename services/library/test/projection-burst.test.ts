import type { Entity } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { createTestDatabase, testBusEvent, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { applyCatalogEvent, applyCatalogEvents, laneOfEvent } from '../src/domain/projection.js';
import { catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/**
 * Events of one entity that waited together are applied as one refresh (decision 0106): the
 * catalog is read once, one `track.updated` is recorded, the position is the last event's.
 */
let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('libraryburst');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

test('a burst of an entity’s events is one refresh and one track.updated; an older event after it changes nothing', async () => {
  const runtime = await startTestLibrary(database);
  const [tenantId, entityId] = [newId(), newId()];
  const entities = new Map([[tenantId, new Map([[entityId, { ...testEntity, id: entityId, title: 'Title 0' } as Entity]])]]);
  const { deps, calls } = catalogDouble(runtime.database.db, entities);
  const updated = (n: number) =>
    testBusEvent({ tenantId, type: 'entity.updated', resourceKind: 'entity', resourceId: entityId, data: { title: `Title ${n}` } });
  const at = (seq: number) => ({ stream: 's1', seq });
  const trackEvents = async () =>
    (await admin.query('select type from library.outbox where tenant_id = $1 order by seq', [tenantId])).rows.map((r) => r.type);
  try {
    expect(await applyCatalogEvent(deps, updated(0), at(1))).toBe('added');
    calls.entity = 0;
    const burst = [1, 2, 3, 4, 5].map((n) => ({ event: updated(n), position: at(n + 1) }));
    entities.get(tenantId)!.set(entityId, { ...testEntity, id: entityId, title: 'Title 5' });
    expect(new Set(burst.map((b) => laneOfEvent(b.event))).size).toBe(1);
    expect(await applyCatalogEvents(deps, burst)).toBe('updated');
    expect(calls.entity).toBe(1);
    expect(await trackEvents()).toEqual(['track.added', 'track.updated']);
    const { rows } = await admin.query('select title_sort from library.tracks where tenant_id = $1', [tenantId]);
    expect(rows).toEqual([{ title_sort: 'title 5' }]);
    // The position is the burst's last: a redelivered event of the burst is stale.
    expect(await applyCatalogEvent(deps, burst[2]!.event, burst[2]!.position)).toBe('stale');
    expect(await trackEvents()).toEqual(['track.added', 'track.updated']);
    // Events of two entities are never applied together.
    const other = testBusEvent({ tenantId, type: 'entity.updated', resourceKind: 'entity', resourceId: newId() });
    await expect(applyCatalogEvents(deps, [burst[0]!, { event: other, position: at(9) }])).rejects.toThrow('of one entity');
  } finally {
    await runtime.stop();
  }
});
