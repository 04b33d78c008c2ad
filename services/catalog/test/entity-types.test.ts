import type { EntityType } from '@catalog/contracts';
import { errorOf, startHarness, type CatalogHarness, type EntityTypeList } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('cattypes');
});

afterAll(async () => {
  await h?.stop();
});

describe('entity types', () => {
  test('a type never configured is 404', async () => {
    const a = h.tenant();
    expect(errorOf(await a.call('getEntityType', { params: { name: 'song' } }))).toEqual({
      status: 404,
      code: 'not_found',
      message: 'entity type not found',
    });
    expect(await a.ok('listEntityTypes')).toEqual({ entityTypes: [] });
  });

  test('PUT upserts; the event is recorded only when the configuration changes', async () => {
    const a = h.tenant();
    const created = await a.call('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['tempo', 'loudness'] } });
    expect(created).toMatchObject({ ok: true, status: 200 });
    const song = (created as { body: EntityType }).body;
    // A set, shown in the canonical order of analysis types.
    expect(song).toEqual({
      name: 'song',
      automaticAnalyses: ['loudness', 'tempo'],
      cuePointMarkers: false,
      createdAt: expect.any(String),
      updatedAt: song.createdAt,
    });
    expect(await a.ok('getEntityType', { params: { name: 'song' } })).toEqual(song);

    // The same set in another order changes nothing.
    expect(await a.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['loudness', 'tempo'] } })).toEqual(song);
    expect(await a.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['tempo', 'loudness'] } })).toEqual(song);

    const changed = await a.ok<EntityType>('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['key'] } });
    expect(changed).toMatchObject({ name: 'song', automaticAnalyses: ['key'], createdAt: song.createdAt });
    expect(Date.parse(changed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(song.updatedAt));
    const cleared = await a.ok<EntityType>('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: [] } });
    expect(cleared.automaticAnalyses).toEqual([]);

    const events = await h.outbox({ tenantId: a.tenantId, type: 'entity_type.updated' });
    expect(events.map((e) => e.data)).toEqual([
      { name: 'song', automaticAnalyses: ['loudness', 'tempo'], cuePointMarkers: false },
      { name: 'song', automaticAnalyses: ['key'], cuePointMarkers: false },
      { name: 'song', automaticAnalyses: [], cuePointMarkers: false },
    ]);
    expect(events[0]).toMatchObject({
      product: 'catalog',
      resource_kind: 'entity_type',
      resource_id: null,
      dmrn: null,
      schema_version: 1,
      source_system: `public-api:${a.keyId}`,
    });
  });

  test('list is sorted by name and limited to the tenant', async () => {
    const a = h.tenant();
    const b = h.tenant();
    for (const name of ['station_id', 'jingle', 'song', 'ad-break']) {
      await a.ok('putEntityType', { params: { name }, body: { automaticAnalyses: ['loudness'] } });
    }
    await b.ok('putEntityType', { params: { name: 'promo' }, body: { automaticAnalyses: [] } });
    const list = await a.ok<EntityTypeList>('listEntityTypes');
    expect(list.entityTypes.map((t: { name: string }) => t.name)).toEqual(['ad-break', 'jingle', 'song', 'station_id']);
    expect((await b.ok<EntityTypeList>('listEntityTypes')).entityTypes.map((t: { name: string }) => t.name)).toEqual(['promo']);
    expect(errorOf(await b.call('getEntityType', { params: { name: 'song' } }))).toMatchObject({ status: 404 });
  });

  test('bad names and bodies are clear 4xx', async () => {
    const a = h.tenant();
    expect(errorOf(await a.call('getEntityType', { params: { name: 'Not A Name' } }))).toMatchObject({ status: 404, code: 'not_found' });
    const unknown = errorOf(await a.call('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['mood'] } }));
    expect(unknown).toMatchObject({ status: 400, code: 'invalid_body' });
    const duplicate = errorOf(await a.call('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['key', 'key'] } }));
    expect(duplicate).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(await h.outbox({ tenantId: a.tenantId })).toEqual([]);
  });

  test('a key without catalog:analysis may not turn automatic analyses on or change them (403), and nothing is recorded', async () => {
    const full = h.tenant();
    const apiOnly = h.tenant({ permissions: ['catalog:api'] });
    const refused = errorOf(await apiOnly.call('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['tempo'] } }));
    expect(refused).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'changing the automatic analyses of an entity type needs the catalog:analysis permission',
      details: { requiredPermission: 'catalog:analysis' },
    });
    expect(errorOf(await apiOnly.call('getEntityType', { params: { name: 'song' } }))).toMatchObject({ status: 404 });
    expect(await h.outbox({ tenantId: apiOnly.tenantId })).toEqual([]);
    expect(
      await apiOnly.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: [], cuePointMarkers: true } }),
    ).toMatchObject({ automaticAnalyses: [], cuePointMarkers: true });
    expect(errorOf(await apiOnly.call('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['key'] } }))).toMatchObject({
      status: 403,
    });
    expect(await full.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['tempo'] } })).toMatchObject({
      automaticAnalyses: ['tempo'],
    });
  });

  test('concurrent first PUTs of one type: all succeed, one event', async () => {
    const a = h.tenant();
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        a.call('putEntityType', { params: { name: 'jingle' }, body: { automaticAnalyses: ['cue_points'] } }),
      ),
    );
    expect(replies.every((r) => r.ok && r.status === 200)).toBe(true);
    expect(await h.outbox({ tenantId: a.tenantId, type: 'entity_type.updated' })).toHaveLength(1);
  });

  test('a tenant has at most 1,000 entity types (their listing is one reply, decision 0052): the next new one is 409, changing one still works', async () => {
    const a = h.tenant();
    await h.sql.query(
      `insert into catalog.entity_types (tenant_id, name, automatic_analyses)
       select $1, 'type-' || lpad(g::text, 4, '0'), '{loudness,tempo,key,cue_points}' from generate_series(1, 999) g`,
      [a.tenantId],
    );
    expect((await a.call('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: [] } })).ok).toBe(true);
    expect(errorOf(await a.call('putEntityType', { params: { name: 'jingle' }, body: { automaticAnalyses: [] } }))).toEqual({
      status: 409,
      code: 'too_many_entity_types',
      message: 'a tenant has at most 1000 entity types',
      details: { limit: 1000 },
    });
    expect(errorOf(await a.call('getEntityType', { params: { name: 'jingle' } }))).toMatchObject({ status: 404 });
    expect((await a.call('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['tempo'] } })).ok).toBe(true);
    expect((await a.ok<EntityTypeList>('listEntityTypes')).entityTypes).toHaveLength(1000);
    expect((await h.tenant().call('putEntityType', { params: { name: 'jingle' }, body: { automaticAnalyses: [] } })).ok).toBe(true);
  });
});
