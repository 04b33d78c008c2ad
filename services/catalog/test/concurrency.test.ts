import type { Entity } from '@catalog/contracts';
import { startHarness, type CatalogHarness, type EntityPage } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catconcurrency');
});

afterAll(async () => {
  await h?.stop();
});

describe('concurrent writes of one entity take turns', () => {
  test('20 parallel PATCHes with different titles: all succeed, 20 events, the last one wins', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'start' } });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => a.call('updateEntity', { params: { id: entity.id }, body: { title: `title ${i}` } })),
    );
    expect(replies.every((r) => r.ok && r.status === 200)).toBe(true);
    const bodies = replies.map((r) => (r as { body: Entity }).body);

    const events = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(events).toHaveLength(20);
    expect(events.every((e) => JSON.stringify(e.data) === '{"changedFields":["title"]}')).toBe(true);
    expect(new Set(events.map((e) => e.tx_id)).size).toBe(20); // one transaction each

    // The writes were serialised: the stored state is the one of the write that committed last,
    // whose updatedAt is the latest of all.
    const final = await a.ok<Entity>('getEntity', { params: { id: entity.id } });
    expect(bodies.find((b) => b.title === final.title)).toEqual(final);
    expect(bodies.every((b) => Date.parse(b.updatedAt) <= Date.parse(final.updatedAt))).toBe(true);
  });

  test('20 parallel PATCHes to the same value: one change, one event', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'before' } });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => a.call('updateEntity', { params: { id: entity.id }, body: { title: 'after', artist: 'someone' } })),
    );
    expect(replies.every((r) => r.ok && r.status === 200)).toBe(true);
    const bodies = replies.map((r) => (r as { body: Entity }).body);
    expect(new Set(bodies.map((b) => b.updatedAt)).size).toBe(1);
    const events = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(events.map((e) => e.data)).toEqual([{ changedFields: ['title', 'artist'] }]);
  });

  test('parallel attaches of one DMRN to one entity: one event', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 't' } });
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => a.call('attachDmrn', { params: { id: entity.id }, body: { value: 'PAR-1' } })),
    );
    expect(replies.every((r) => r.ok && r.status === 200)).toBe(true);
    expect(await h.outbox({ resourceId: entity.id, type: 'entity.updated' })).toHaveLength(1);
  });

  test('parallel creates with one DMRN: one 201, the rest 409 dmrn_in_use, no half-written state', async () => {
    const a = h.tenant();
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        a.call('createEntity', { body: { type: 'song', title: `c${i}`, externalReferences: { dmrn: 'RACE-1' } } }),
      ),
    );
    const created = replies.filter((r) => r.ok);
    const refused = replies.filter((r) => !r.ok);
    expect(created).toHaveLength(1);
    expect(refused.every((r) => !r.ok && r.error.status === 409 && r.error.code === 'dmrn_in_use')).toBe(true);
    expect((await a.ok<EntityPage>('listEntities', {})).entities).toHaveLength(1);
    expect(await h.outbox({ tenantId: a.tenantId })).toHaveLength(1);
  });

  test('parallel attaches of one DMRN to different entities: one wins, the rest 409', async () => {
    const a = h.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push((await a.ok<Entity>('createEntity', { body: { type: 'song', title: `e${i}` } })).id);
    const replies = await Promise.all(ids.map((id) => a.call('attachDmrn', { params: { id }, body: { value: 'RACE-2' } })));
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(replies.filter((r) => !r.ok && r.error.code === 'dmrn_in_use')).toHaveLength(7);
    expect(await h.outbox({ tenantId: a.tenantId, type: 'entity.updated' })).toHaveLength(1);
  });
});
