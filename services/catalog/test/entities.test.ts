import type { EntitiesRead, Entity, EntityBatch } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { errorOf, startHarness, type CatalogHarness, type EntityPage } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catentities');
});

afterAll(async () => {
  await h?.stop();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('entity CRUD', () => {
  test('readEntities (internal): the entities found in the order asked, and the ids the tenant has not', async () => {
    const [a, b] = [h.tenant(), h.tenant()];
    const first = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'First' } });
    const second = await a.ok<Entity>('createEntity', { body: { type: 'jingle', title: 'Second', artist: 'S' } });
    const elsewhere = await b.ok<Entity>('createEntity', { body: { type: 'song', title: 'Of another tenant' } });
    const gone = newId();
    const read = await a.ok<EntitiesRead>('readEntities', { body: { ids: [second.id, gone, elsewhere.id, first.id] } });
    expect(read).toEqual({ entities: [second, first], missing: [gone, elsewhere.id] });
    expect(errorOf(await a.call('readEntities', { body: { ids: [] } }))).toMatchObject({ status: 400 });
    expect(errorOf(await a.call('readEntities', { body: { ids: Array.from({ length: 51 }, () => newId()) } }))).toMatchObject({
      status: 400,
    });
  });

  test('create, read, update, delete', async () => {
    const a = h.tenant();
    const created = await a.call('createEntity', { body: { type: 'song', title: 'Blue Monday', artist: 'New Order' } });
    expect(created).toMatchObject({ ok: true, status: 201 });
    const entity = (created as { body: Entity }).body;
    expect(entity).toEqual({
      id: expect.stringMatching(UUID_V7),
      type: 'song',
      title: 'Blue Monday',
      artist: 'New Order',
      externalReferences: { dmrn: null },
      primaryAudioVersion: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(entity.updatedAt).toBe(entity.createdAt);

    expect(await a.call('getEntity', { params: { id: entity.id } })).toEqual({ ok: true, status: 200, body: entity });

    const updated = await a.ok<Entity>('updateEntity', { params: { id: entity.id }, body: { title: 'Blue Monday 88', artist: null } });
    expect(updated).toMatchObject({ id: entity.id, type: 'song', title: 'Blue Monday 88', artist: null, createdAt: entity.createdAt });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(entity.updatedAt));
    expect(await a.ok('getEntity', { params: { id: entity.id } })).toEqual(updated);

    expect(await a.call('deleteEntity', { params: { id: entity.id } })).toEqual({ ok: true, status: 204, body: null });
    expect(errorOf(await a.call('getEntity', { params: { id: entity.id } }))).toMatchObject({ status: 404, code: 'not_found' });
    expect(errorOf(await a.call('deleteEntity', { params: { id: entity.id } }))).toMatchObject({ status: 404, code: 'not_found' });
  });

  test('create with a DMRN; artist defaults to null', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', {
      body: { type: 'jingle', title: 'Station ID', externalReferences: { dmrn: 'DMRN-0001' } },
    });
    expect(entity).toMatchObject({ type: 'jingle', artist: null, externalReferences: { dmrn: 'DMRN-0001' } });
    const empty = await a.ok<Entity>('createEntity', { body: { type: 'jingle', title: 'Other', externalReferences: {} } });
    expect(empty.externalReferences).toEqual({ dmrn: null });
  });

  test('unknown ids are 404 for every entity operation', async () => {
    const a = h.tenant();
    const params = { id: newId() };
    for (const [operation, body] of [
      ['getEntity', null],
      ['updateEntity', { title: 'x' }],
      ['deleteEntity', null],
      ['attachDmrn', { value: 'D-1' }],
      ['detachDmrn', null],
    ] as const) {
      expect(errorOf(await a.call(operation, { params, body }))).toEqual({ status: 404, code: 'not_found', message: 'entity not found' });
    }
  });

  test('bad input from a caller that skipped the gateway is a clear 4xx, never a 500', async () => {
    const a = h.tenant();
    // Ids that are not plain UUIDs (ajv's uuid format also admits a urn:uuid: prefix) are unknown ids.
    for (const id of ['nope', `urn:uuid:${newId()}`]) {
      expect(errorOf(await a.call('getEntity', { params: { id } }))).toMatchObject({ status: 404, code: 'not_found' });
    }
    const missingTitle = errorOf(await a.call('createEntity', { body: { type: 'song' } }));
    expect(missingTitle).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(missingTitle.details).toEqual({ fields: [{ location: 'body', path: '/title', message: 'is required' }] });
    expect(errorOf(await a.call('createEntity', { body: { type: 'Song!', title: 't' } }))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(errorOf(await a.call('createEntity', {}))).toMatchObject({ status: 400, code: 'invalid_body' });
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 't' } });
    expect(errorOf(await a.call('updateEntity', { params: { id: entity.id }, body: {} }))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(errorOf(await a.call('updateEntity', { params: { id: entity.id }, body: { dmrn: 'x' } }))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(errorOf(await a.call('listEntities', { query: { limit: 0 } }))).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(errorOf(await a.call('listEntities', { query: { limit: 201 } }))).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(errorOf(await a.call('attachDmrn', { params: { id: entity.id }, body: { value: '' } }))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    // JSON may carry NUL characters; Postgres text cannot (no control characters at all: decision 0052).
    expect(errorOf(await a.call('updateEntity', { params: { id: entity.id }, body: { artist: 'a\u0000b' } }))).toEqual({
      status: 400,
      code: 'invalid_body',
      message: 'invalid body',
      details: {
        fields: [
          {
            location: 'body',
            path: '/artist',
            message: 'must be one line without control characters (no tab or line break) or unpaired surrogates',
          },
        ],
      },
    });
    expect(errorOf(await a.call('createEntity', { body: { type: 'song', title: '\u0000' } }))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(await a.ok('getEntity', { params: { id: entity.id } })).toEqual(entity);
  });
});

describe('batch creation', () => {
  const batchOf = (count: number, make: (i: number) => Record<string, unknown> = (i) => ({ type: 'song', title: `Track ${i}` })) => ({
    entities: Array.from({ length: count }, (_, i) => make(i)),
  });

  test('creates every entity in the order sent; their events share the batch id of the answer', async () => {
    const a = h.tenant();
    const created = await a.call('createEntities', {
      body: {
        entities: [
          { type: 'song', title: 'Blue Monday', artist: 'New Order', externalReferences: { dmrn: 'B-1' } },
          { type: 'jingle', title: 'Station ID' },
          { type: 'song', title: 'Ceremony' },
        ],
      },
    });
    expect(created).toMatchObject({ ok: true, status: 201 });
    const batch = (created as { body: EntityBatch }).body;
    expect(batch.batchId).toMatch(UUID_V7);
    expect(batch.entities.map((e) => [e.type, e.title, e.artist, e.externalReferences.dmrn])).toEqual([
      ['song', 'Blue Monday', 'New Order', 'B-1'],
      ['jingle', 'Station ID', null, null],
      ['song', 'Ceremony', null, null],
    ]);
    for (const entity of batch.entities) expect(await a.ok('getEntity', { params: { id: entity.id } })).toEqual(entity);
    expect((await a.ok<EntityPage>('listEntities', {})).entities).toEqual(batch.entities);

    const events = await h.outbox({ tenantId: a.tenantId });
    expect(events.map((e) => [e.type, e.resource_id, e.dmrn, e.batch_id, e.data])).toEqual([
      ['entity.created', batch.entities[0]!.id, 'B-1', batch.batchId, { entityType: 'song' }],
      ['entity.created', batch.entities[1]!.id, null, batch.batchId, { entityType: 'jingle' }],
      ['entity.created', batch.entities[2]!.id, null, batch.batchId, { entityType: 'song' }],
    ]);
    expect(new Set(events.map((e) => e.tx_id)).size).toBe(1);

    // A single creation's event has a batch id of its own.
    const single = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Alone' } });
    const [own] = await h.outbox({ resourceId: single.id });
    expect(own!.batch_id).not.toBe(batch.batchId);
  });

  test('100 entities at once; 0 or 101 is 400 with nothing written', async () => {
    const a = h.tenant();
    const batch = await a.ok<EntityBatch>('createEntities', { body: batchOf(100) });
    expect(batch.entities.map((e) => e.title)).toEqual(Array.from({ length: 100 }, (_, i) => `Track ${i}`));
    const b = h.tenant();
    for (const body of [batchOf(0), batchOf(101), {}, { entities: {} }, { entities: [], extra: 1 }]) {
      expect(errorOf(await b.call('createEntities', { body }))).toMatchObject({ status: 400, code: 'invalid_body' });
    }
    expect(await h.outbox({ tenantId: b.tenantId })).toEqual([]);
  });

  test('one invalid entity refuses the whole batch and names it', async () => {
    const a = h.tenant();
    const error = errorOf(
      await a.call('createEntities', { body: batchOf(3, (i) => (i === 2 ? { type: 'song' } : { type: 'song', title: `T${i}` })) }),
    );
    expect(error).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(error.details).toEqual({ fields: [{ location: 'body', path: '/entities/2/title', message: 'is required' }] });
    expect((await a.ok<EntityPage>('listEntities', {})).entities).toEqual([]);
    expect(await h.outbox({ tenantId: a.tenantId })).toEqual([]);
  });

  test('a DMRN claimed twice in the batch is 400; one already in use is 409 naming its holder; nothing is written', async () => {
    const a = h.tenant();
    const twice = errorOf(
      await a.call('createEntities', {
        body: batchOf(4, (i) => ({ type: 'song', title: `T${i}`, externalReferences: { dmrn: i % 2 ? 'D-TWICE' : `D-${i}` } })),
      }),
    );
    expect(twice).toEqual({
      status: 400,
      code: 'duplicate_dmrn',
      message: 'two entities of the batch claim the same DMRN',
      details: { dmrn: 'D-TWICE', indexes: [1, 3] },
    });

    const holder = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Holder', externalReferences: { dmrn: 'D-HELD' } } });
    const inUse = errorOf(
      await a.call('createEntities', {
        body: {
          entities: [
            { type: 'song', title: 'Free', externalReferences: { dmrn: 'D-FREE' } },
            { type: 'song', title: 'Taken', externalReferences: { dmrn: 'D-HELD' } },
          ],
        },
      }),
    );
    expect(inUse).toEqual({
      status: 409,
      code: 'dmrn_in_use',
      message: 'this DMRN is already attached to another entity',
      details: { dmrn: 'D-HELD', entityId: holder.id },
    });
    expect((await a.ok<EntityPage>('listEntities', {})).entities.map((e) => e.id)).toEqual([holder.id]);
    expect((await h.outbox({ tenantId: a.tenantId })).map((e) => e.resource_id)).toEqual([holder.id]);

    // Another tenant's DMRNs do not count.
    const b = h.tenant();
    const ok = await b.ok<EntityBatch>('createEntities', {
      body: { entities: [{ type: 'song', title: 'B', externalReferences: { dmrn: 'D-HELD' } }] },
    });
    expect(ok.entities[0]!.externalReferences.dmrn).toBe('D-HELD');
  });
});

describe('listing', () => {
  test('keyset pages across the whole list, without duplicates; the last cursor is null', async () => {
    const a = h.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await a.ok<Entity>('createEntity', { body: { type: 'song', title: `Song ${i}` } })).id);

    const seen: string[] = [];
    const pages: Array<{ count: number; hasMore: boolean; nextCursor: string | null }> = [];
    let after: string | undefined;
    do {
      const page = await a.ok<EntityPage>('listEntities', { query: { limit: 3, ...(after ? { after } : {}) } });
      seen.push(...page.entities.map((e: { id: string }) => e.id));
      pages.push({ count: page.entities.length, hasMore: page.hasMore, nextCursor: page.nextCursor });
      after = page.nextCursor ?? undefined;
    } while (after);

    expect(pages.map((p) => [p.count, p.hasMore])).toEqual([
      [3, true],
      [3, true],
      [1, false],
    ]);
    expect(pages[2]!.nextCursor).toBeNull();
    expect(seen).toEqual(ids); // oldest first, each once
    expect(new Set(seen).size).toBe(7);
  });

  test('a page that ends exactly at the end has no next cursor', async () => {
    const a = h.tenant();
    for (let i = 0; i < 4; i += 1) await a.ok('createEntity', { body: { type: 'song', title: `S${i}` } });
    const first = await a.ok<EntityPage>('listEntities', { query: { limit: 2 } });
    const second = await a.ok<EntityPage>('listEntities', { query: { limit: 2, after: first.nextCursor } });
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.entities).toHaveLength(2);
  });

  test('limit defaults to 50', async () => {
    const a = h.tenant();
    for (let i = 0; i < 51; i += 1) await a.ok('createEntity', { body: { type: 'song', title: `S${i}` } });
    const page = await a.ok<EntityPage>('listEntities', {});
    expect(page.entities).toHaveLength(50);
    expect(page.hasMore).toBe(true);
    const rest = await a.ok<EntityPage>('listEntities', { query: { after: page.nextCursor } });
    expect(rest).toMatchObject({ hasMore: false, nextCursor: null });
    expect(rest.entities).toHaveLength(1);
  });

  test('an empty list', async () => {
    expect(await h.tenant().ok('listEntities', { query: { limit: 10 } })).toEqual({ entities: [], nextCursor: null, hasMore: false });
  });

  test('a malformed cursor is 400 invalid_cursor', async () => {
    const a = h.tenant();
    const bad = [
      'not a cursor!',
      'abc',
      Buffer.from(JSON.stringify({ v: 2, id: newId() })).toString('base64url'),
      Buffer.from(JSON.stringify({ v: 1, id: 'x' })).toString('base64url'),
      Buffer.from(JSON.stringify({ v: 1 })).toString('base64url'),
    ];
    for (const after of bad) {
      const error = errorOf(await a.call('listEntities', { query: { after } }));
      expect(error).toMatchObject({ status: 400, code: 'invalid_cursor', details: { parameter: 'after' } });
    }
  });

  test('type filter, paged', async () => {
    const a = h.tenant();
    const songs: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      songs.push((await a.ok<Entity>('createEntity', { body: { type: 'song', title: `Song ${i}` } })).id);
      await a.ok('createEntity', { body: { type: 'jingle', title: `Jingle ${i}` } });
    }
    const first = await a.ok<EntityPage>('listEntities', { query: { type: 'song', limit: 3 } });
    const second = await a.ok<EntityPage>('listEntities', { query: { type: 'song', limit: 3, after: first.nextCursor } });
    expect([...first.entities, ...second.entities].map((e: { id: string }) => e.id)).toEqual(songs);
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    expect((await a.ok<EntityPage>('listEntities', { query: { type: 'station_id' } })).entities).toEqual([]);
  });
});

describe('tenant isolation', () => {
  test("another tenant's entity answers exactly like a missing one", async () => {
    const a = h.tenant();
    const b = h.tenant();
    const entity = await a.ok<Entity>('createEntity', {
      body: { type: 'song', title: 'Only A', externalReferences: { dmrn: 'SHARED-1' } },
    });
    const missing = { status: 404, code: 'not_found', message: 'entity not found' };
    expect(errorOf(await b.call('getEntity', { params: { id: entity.id } }))).toEqual(missing);
    expect(errorOf(await b.call('updateEntity', { params: { id: entity.id }, body: { title: 'B was here' } }))).toEqual(missing);
    expect(errorOf(await b.call('attachDmrn', { params: { id: entity.id }, body: { value: 'B-1' } }))).toEqual(missing);
    expect(errorOf(await b.call('detachDmrn', { params: { id: entity.id } }))).toEqual(missing);
    expect(errorOf(await b.call('deleteEntity', { params: { id: entity.id } }))).toEqual(missing);
    expect((await b.ok<EntityPage>('listEntities', {})).entities).toEqual([]);

    // A cursor names a position, not a tenant: B following A's cursor still sees only B's entities.
    const bEntity = await b.ok<Entity>('createEntity', { body: { type: 'song', title: 'Only B' } });
    const aPage = await a.ok<EntityPage>('listEntities', { query: { limit: 1 } });
    expect(aPage.entities.map((e: { id: string }) => e.id)).toEqual([entity.id]);
    const bList = await b.ok<EntityPage>('listEntities', {});
    expect(bList.entities.map((e: { id: string }) => e.id)).toEqual([bEntity.id]);

    // DMRNs are unique per tenant: B may use the value A uses.
    const bWithSame = await b.ok<Entity>('createEntity', { body: { type: 'song', title: 'B', externalReferences: { dmrn: 'SHARED-1' } } });
    expect(bWithSame.externalReferences.dmrn).toBe('SHARED-1');

    expect(await a.ok('getEntity', { params: { id: entity.id } })).toEqual(entity);
  });
});
