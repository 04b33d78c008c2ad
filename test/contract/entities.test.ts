import { eventually } from '@catalog/testing';
import { expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

const sut = useSystem({ database: true });

async function outbox(resourceId: string): Promise<Array<{ type: string; data: any; dmrn: string | null; source_system: string }>> {
  const { rows } = await sut.db.query(
    'select type, data, dmrn, source_system from catalog.outbox where resource_id = $1 order by tx_id, seq',
    [resourceId],
  );
  return rows;
}

describe('entities through the public API', () => {
  test('create, read, list, update, delete', async () => {
    const { key } = await sut.api.tenant();
    const created = await sut.api.request('POST', '/api/v1/catalog/entities', {
      key,
      body: { type: 'song', title: 'Blue Monday', artist: 'New Order' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'song', title: 'Blue Monday', artist: 'New Order', externalReferences: { dmrn: null } });
    const id = created.body.id;

    expect((await sut.api.request('GET', `/api/v1/catalog/entities/${id}`, { key })).body).toEqual(created.body);

    const updated = await sut.api.request('PATCH', `/api/v1/catalog/entities/${id}`, { key, body: { title: 'Blue Monday ’88' } });
    expect(updated.status).toBe(200);
    expect(updated.body.title).toBe('Blue Monday ’88');

    const listed = await sut.api.request('GET', '/api/v1/catalog/entities', { key });
    expect(listed.body.entities.map((e: { id: string }) => e.id)).toEqual([id]);

    expect((await sut.api.request('DELETE', `/api/v1/catalog/entities/${id}`, { key })).status).toBe(204);
    expectError(await sut.api.request('GET', `/api/v1/catalog/entities/${id}`, { key }), 404, 'not_found');

    expect((await outbox(id)).map((e) => e.type)).toEqual(['entity.created', 'entity.updated', 'entity.deleted']);
  });

  test('keyset pagination walks every entity once', async () => {
    const { key } = await sut.api.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'jingle', title: `J${i}` } })).body.id);
    }
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const query: string = after ? `limit=2&after=${encodeURIComponent(after)}` : 'limit=2';
      const page = await sut.api.request('GET', `/api/v1/catalog/entities?${query}`, { key });
      expect(page.status).toBe(200);
      seen.push(...page.body.entities.map((e: { id: string }) => e.id));
      after = page.body.nextCursor;
      expect(page.body.hasMore).toBe(after !== null);
      pages += 1;
    } while (after);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
  });

  test('DMRN attached twice records one entity.updated with changedFields ["externalReferences"]', async () => {
    const { key, keyId } = await sut.api.tenant();
    const id = (await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Song' } })).body.id;
    const first = await sut.api.request('PUT', `/api/v1/catalog/entities/${id}/external-references/dmrn`, {
      key,
      body: { value: 'DMRN-0001' },
    });
    expect(first.status).toBe(200);
    expect(first.body.externalReferences).toEqual({ dmrn: 'DMRN-0001' });
    const second = await sut.api.request('PUT', `/api/v1/catalog/entities/${id}/external-references/dmrn`, {
      key,
      body: { value: 'DMRN-0001' },
    });
    expect(second.status).toBe(200);
    expect(second.body.updatedAt).toBe(first.body.updatedAt);

    const events = await outbox(id);
    const updates = events.filter((e) => e.type === 'entity.updated');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.data).toEqual({ changedFields: ['externalReferences'] });
    expect(updates[0]!.dmrn).toBe('DMRN-0001');
    expect(updates[0]!.source_system).toBe(`public-api:${keyId}`);
  });

  test('a key bound to a source system writes events under that name; no credential is in an event', async () => {
    const { key, keyId } = await sut.api.tenant();
    const integration = await sut.api.request('POST', '/api/v1/catalog/integrations', {
      key,
      body: { name: 'playout-studio-a', kind: 'playout' },
    });
    const bound = await sut.api.admin('PUT', `/admin/v1/api-keys/${keyId}/source-system`, { integrationId: integration.body.id });
    expect(bound.status).toBe(200);
    const id = (await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Bound' } })).body.id;
    const events = await outbox(id);
    expect(events.map((e) => e.source_system)).toEqual(['playout-studio-a']);
    expect(JSON.stringify(events)).not.toContain(key.slice(35));
  });

  test('a DMRN can belong to one entity of a tenant only', async () => {
    const { key } = await sut.api.tenant();
    const one = (
      await sut.api.request('POST', '/api/v1/catalog/entities', {
        key,
        body: { type: 'song', title: 'One', externalReferences: { dmrn: 'DMRN-X' } },
      })
    ).body.id;
    const two = (await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Two' } })).body.id;
    const clash = await sut.api.request('PUT', `/api/v1/catalog/entities/${two}/external-references/dmrn`, {
      key,
      body: { value: 'DMRN-X' },
    });
    expectError(clash, 409, 'dmrn_in_use');
    expect((await sut.api.request('GET', `/api/v1/catalog/entities/${one}`, { key })).body.externalReferences.dmrn).toBe('DMRN-X');
  });

  test('a batch creation through the gateway: 201 with the entities in order, one batchId on their events in the feed', async () => {
    const { key } = await sut.api.tenant();
    const entities = [
      { type: 'song', title: 'Atmosphere', artist: 'Joy Division' },
      { type: 'jingle', title: 'Top of the hour', externalReferences: { dmrn: 'DMRN-B1' } },
    ];
    const created = await sut.api.request('POST', '/api/v1/catalog/entities/batch', { key, body: { entities } });
    expect(created.status).toBe(201);
    expect(created.body.entities.map((e: any) => [e.title, e.externalReferences.dmrn])).toEqual([
      ['Atmosphere', null],
      ['Top of the hour', 'DMRN-B1'],
    ]);
    const ids = created.body.entities.map((e: { id: string }) => e.id);
    const feed = await eventually(async () => {
      const page = await sut.api.request('GET', '/api/v1/catalog/events?types=entity.created', { key });
      return page.body.events?.length === 2 ? page.body.events : undefined;
    }, 15_000);
    expect(feed.map((e: any) => [e.resourceId, e.batchId, e.dmrn])).toEqual([
      [ids[0], created.body.batchId, null],
      [ids[1], created.body.batchId, 'DMRN-B1'],
    ]);

    const tooMany = await sut.api.request('POST', '/api/v1/catalog/entities/batch', {
      key,
      body: { entities: Array.from({ length: 101 }, (_, i) => ({ type: 'song', title: `T${i}` })) },
    });
    expectError(tooMany, 400, 'invalid_body');
    // `batch` is no entity id: the path written out has POST only (decision 0051).
    const notAnEntity = await sut.api.request('GET', '/api/v1/catalog/entities/batch', { key });
    expectError(notAnEntity, 405, 'method_not_allowed');
    expect(notAnEntity.headers.get('allow')).toBe('POST');
  });

  test('entity types configure automatic analyses', async () => {
    const { key } = await sut.api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
    const put = await sut.api.request('PUT', '/api/v1/catalog/entity-types/song', {
      key,
      body: { automaticAnalyses: ['loudness', 'tempo'] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'song', automaticAnalyses: ['loudness', 'tempo'] });
    const bad = await sut.api.request('PUT', '/api/v1/catalog/entity-types/song', { key, body: { automaticAnalyses: ['astrology'] } });
    expectError(bad, 400, 'invalid_body');
    const listed = await sut.api.request('GET', '/api/v1/catalog/entity-types', { key });
    expect(listed.body.entityTypes.map((t: { name: string }) => t.name)).toEqual(['song']);
  });
});
