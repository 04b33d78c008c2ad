import type { Entity } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { createTestDatabase, testBusEvent, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { applyCatalogEvent, applyCatalogEventLanes } from '../src/domain/projection.js';
import { catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/**
 * The waiting events of several entities are applied together (decision 0111): one catalog read
 * per tenant, one transaction per tenant, each entity's outcome its own, each track event its own
 * batch; an entity whose position is already later is left as it is.
 */
let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('librarylanes');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

test('lanes of several entities and tenants: one catalog read per tenant, an outcome per lane, a batch id per track event', async () => {
  const runtime = await startTestLibrary(database);
  const [tenantA, tenantB] = [newId(), newId()];
  const [kept, renamed, deleted, stale, other] = [newId(), newId(), newId(), newId(), newId()];
  const song = (id: string, title: string) => ({ ...testEntity, id, title }) as Entity;
  const entities = new Map([
    [tenantA, new Map([kept, renamed, deleted, stale].map((id) => [id, song(id, `Before ${id.slice(-4)}`)]))],
    [tenantB, new Map([[other, song(other, 'Other')]])],
  ]);
  const { deps, calls } = catalogDouble(runtime.database.db, entities);
  const updated = (tenantId: string, entityId: string) =>
    testBusEvent({ tenantId, type: 'entity.updated', resourceKind: 'entity', resourceId: entityId, data: { changedFields: ['title'] } });
  const at = (seq: number) => ({ stream: 's1', seq });
  try {
    // Every entity has a track first, `stale` at a later position than the batch will bring.
    for (const [k, id] of [kept, renamed, deleted].entries()) await applyCatalogEvent(deps, updated(tenantA, id), at(k + 1));
    await applyCatalogEvent(deps, updated(tenantA, stale), at(100));
    calls.entity = 0;
    entities.get(tenantA)!.set(renamed, song(renamed, 'After'));
    entities.get(tenantA)!.delete(deleted);
    const lanes = [
      [{ event: updated(tenantA, kept), position: at(10) }],
      [
        { event: updated(tenantA, renamed), position: at(11) },
        { event: updated(tenantA, renamed), position: at(12) },
      ],
      [{ event: updated(tenantA, deleted), position: at(13) }],
      [{ event: updated(tenantA, stale), position: at(14) }],
      [{ event: updated(tenantB, other), position: at(15) }],
      [
        {
          event: testBusEvent({ tenantId: tenantA, type: 'entity_type.updated', resourceKind: 'entity_type', resourceId: null }),
          position: at(16),
        },
      ],
    ];
    expect(await applyCatalogEventLanes(deps, lanes)).toEqual(['unchanged', 'updated', 'removed', 'stale', 'added', 'ignored']);
    expect(calls.entity).toBe(2);
    const { rows: events } = await admin.query<{ type: string; resource_id: string; batch_id: string }>(
      'select type, resource_id, batch_id from library.outbox where seq > (select max(seq) - 3 from library.outbox) order by seq',
    );
    expect(events.map((e) => [e.type, e.resource_id])).toEqual([
      ['track.updated', renamed],
      ['track.removed', deleted],
      ['track.added', other],
    ]);
    expect(new Set(events.map((e) => e.batch_id)).size).toBe(3);
    const { rows: tracks } = await admin.query<{ entity_id: string; title: string }>(
      `select entity_id, summary->>'title' as title from library.tracks order by title`,
    );
    expect(tracks.map((t) => [t.entity_id, t.title])).toEqual(
      [
        [renamed, 'After'],
        [kept, `Before ${kept.slice(-4)}`],
        [stale, `Before ${stale.slice(-4)}`],
        [other, 'Other'],
      ].sort((x, y) => (x[1]! < y[1]! ? -1 : 1)),
    );
    const { rows: positions } = await admin.query<{ entity_id: string; seq: string }>(
      'select entity_id, seq::text from library.entity_positions',
    );
    expect(new Map(positions.map((p) => [p.entity_id, Number(p.seq)]))).toEqual(
      new Map([
        [kept, 10],
        [renamed, 12],
        [deleted, 13],
        [stale, 100],
        [other, 15],
      ]),
    );
  } finally {
    await runtime.stop();
  }
});
