import type { Entity } from '@catalog/contracts';
import { errorOf, startHarness, type CatalogHarness, type Caller, type EntityPage } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catevents');
});

afterAll(async () => {
  await h?.stop();
});

async function song(caller: Caller, extra: Record<string, unknown> = {}): Promise<Entity> {
  return caller.ok<Entity>('createEntity', { body: { type: 'song', title: 'Song', artist: 'Artist', ...extra } });
}

describe('entity events in the outbox', () => {
  test('entity.created carries the envelope fields and the entity type', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'DM-CREATED' } });
    const rows = await h.outbox({ resourceId: entity.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenant_id: a.tenantId,
      product: 'catalog',
      type: 'entity.created',
      resource_kind: 'entity',
      resource_id: entity.id,
      dmrn: 'DM-CREATED',
      source_system: `public-api:${a.keyId}`,
      schema_version: 1,
      data: { entityType: 'song' },
    });
  });

  test('entity.updated names exactly the changed fields, in registry order', async () => {
    const a = h.tenant();
    const entity = await song(a);
    await a.ok('updateEntity', { params: { id: entity.id }, body: { artist: 'Other', title: 'New title', type: 'song' } });
    await a.ok('updateEntity', { params: { id: entity.id }, body: { artist: null } });
    await a.ok('updateEntity', { params: { id: entity.id }, body: { type: 'jingle', title: 'New title' } });
    const updates = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(updates.map((r) => r.data)).toEqual([
      { changedFields: ['title', 'artist'] },
      { changedFields: ['artist'] },
      { changedFields: ['type'] },
    ]);
    expect(updates.every((r) => r.dmrn === null && r.resource_kind === 'entity' && r.schema_version === 1)).toBe(true);
  });

  test('a PATCH that changes nothing records nothing and keeps updatedAt', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'DM-SAME' } });
    const same = await a.ok<Entity>('updateEntity', { params: { id: entity.id }, body: { title: 'Song', artist: 'Artist', type: 'song' } });
    expect(same).toEqual(entity);
    const nullArtist = await song(a, { title: 'No artist', artist: undefined });
    expect(await a.ok('updateEntity', { params: { id: nullArtist.id }, body: { artist: null } })).toEqual(nullArtist);
    expect(await h.outbox({ tenantId: a.tenantId, type: 'entity.updated' })).toEqual([]);
  });

  test('the update event carries the DMRN of the entity', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'DM-UPD' } });
    await a.ok('updateEntity', { params: { id: entity.id }, body: { title: 'Renamed' } });
    const [row] = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(row).toMatchObject({ dmrn: 'DM-UPD', data: { changedFields: ['title'] } });
  });

  test('delete records entity.deleted with the DMRN the entity had', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'DM-GONE' } });
    await a.ok('deleteEntity', { params: { id: entity.id } });
    const rows = await h.outbox({ resourceId: entity.id });
    expect(rows.map((r) => r.type)).toEqual(['entity.created', 'entity.deleted']);
    expect(rows[1]).toMatchObject({ dmrn: 'DM-GONE', data: {}, resource_kind: 'entity', source_system: `public-api:${a.keyId}` });
    // The DMRN is free again once its entity is gone.
    await song(a, { externalReferences: { dmrn: 'DM-GONE' } });
  });

  test('a failed write records no event', async () => {
    const a = h.tenant();
    await song(a, { externalReferences: { dmrn: 'DM-TAKEN' } });
    // Ids only: the outbox relay may mark rows published meanwhile.
    const before = (await h.outbox({ tenantId: a.tenantId })).map((row) => row.id);
    errorOf(await a.call('createEntity', { body: { type: 'song', title: 'dup', externalReferences: { dmrn: 'DM-TAKEN' } } }));
    expect((await h.outbox({ tenantId: a.tenantId })).map((row) => row.id)).toEqual(before);
    expect((await a.ok<EntityPage>('listEntities', {})).entities).toHaveLength(1);
  });
});

describe('DMRN', () => {
  test('attaching twice records exactly one entity.updated with ["externalReferences"]', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const first = await a.call('attachDmrn', { params: { id: entity.id }, body: { value: 'DMRN-42' } });
    expect(first).toMatchObject({ ok: true, status: 200, body: { id: entity.id, externalReferences: { dmrn: 'DMRN-42' } } });
    const second = await a.call('attachDmrn', { params: { id: entity.id }, body: { value: 'DMRN-42' } });
    expect(second).toEqual(first); // nothing written, not even updatedAt

    const updates = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ dmrn: 'DMRN-42', data: { changedFields: ['externalReferences'] } });
  });

  test('attaching another value replaces the DMRN', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'OLD-1' } });
    const replaced = await a.ok<Entity>('attachDmrn', { params: { id: entity.id }, body: { value: 'NEW-1' } });
    expect(replaced.externalReferences).toEqual({ dmrn: 'NEW-1' });
    const updates = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(updates.map((r) => [r.dmrn, r.data])).toEqual([['NEW-1', { changedFields: ['externalReferences'] }]]);
    // The old value is free for another entity.
    await song(a, { externalReferences: { dmrn: 'OLD-1' } });
  });

  test('a DMRN held by another entity of the tenant is 409 dmrn_in_use', async () => {
    const a = h.tenant();
    const holder = await song(a, { externalReferences: { dmrn: 'HELD-1' } });
    const other = await song(a);
    const attach = errorOf(await a.call('attachDmrn', { params: { id: other.id }, body: { value: 'HELD-1' } }));
    expect(attach).toEqual({
      status: 409,
      code: 'dmrn_in_use',
      message: 'this DMRN is already attached to another entity',
      details: { dmrn: 'HELD-1', entityId: holder.id },
    });
    const create = errorOf(await a.call('createEntity', { body: { type: 'song', title: 'x', externalReferences: { dmrn: 'HELD-1' } } }));
    expect(create).toMatchObject({ status: 409, code: 'dmrn_in_use', details: { dmrn: 'HELD-1', entityId: holder.id } });
    expect((await a.ok<Entity>('getEntity', { params: { id: other.id } })).externalReferences).toEqual({ dmrn: null });
    expect(await h.outbox({ resourceId: other.id, type: 'entity.updated' })).toEqual([]);
  });

  test('detach removes the DMRN once; the event carries the removed value; 204 either way', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'DET-1' } });
    expect(await a.call('detachDmrn', { params: { id: entity.id } })).toEqual({ ok: true, status: 204, body: null });
    expect(await a.call('detachDmrn', { params: { id: entity.id } })).toEqual({ ok: true, status: 204, body: null });
    expect((await a.ok<Entity>('getEntity', { params: { id: entity.id } })).externalReferences).toEqual({ dmrn: null });
    const updates = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(updates.map((r) => [r.dmrn, r.data])).toEqual([['DET-1', { changedFields: ['externalReferences'] }]]);
  });
});
