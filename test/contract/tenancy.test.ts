import { expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

const sut = useSystem();

describe('two tenants cannot see, list, update or delete each other’s entities', () => {
  test('every operation on a foreign id answers exactly like a missing one (404, no data)', async () => {
    const a = await sut.api.tenant({ name: 'Station A' });
    const b = await sut.api.tenant({ name: 'Station B' });
    const created = await sut.api.request('POST', '/api/v1/catalog/entities', { key: a.key, body: { type: 'song', title: 'Only for A' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const missing = '01900000-0000-7000-8000-000000000000';

    for (const target of [id, missing]) {
      const attempts = [
        await sut.api.request('GET', `/api/v1/catalog/entities/${target}`, { key: b.key }),
        await sut.api.request('PATCH', `/api/v1/catalog/entities/${target}`, { key: b.key, body: { title: 'stolen' } }),
        await sut.api.request('PUT', `/api/v1/catalog/entities/${target}/external-references/dmrn`, {
          key: b.key,
          body: { value: 'DMRN-1' },
        }),
        await sut.api.request('DELETE', `/api/v1/catalog/entities/${target}`, { key: b.key }),
      ];
      for (const response of attempts) {
        expectError(response, 404, 'not_found');
        expect(JSON.stringify(response.body)).not.toContain('Only for A');
      }
    }

    const listedByB = await sut.api.request('GET', '/api/v1/catalog/entities', { key: b.key });
    expect(listedByB.body.entities).toEqual([]);

    const stillThere = await sut.api.request('GET', `/api/v1/catalog/entities/${id}`, { key: a.key });
    expect(stillThere.status).toBe(200);
    expect(stillThere.body.title).toBe('Only for A');
    expect(stillThere.body.externalReferences.dmrn).toBeNull();
  });

  test('a cursor from one tenant reveals nothing to another', async () => {
    const a = await sut.api.tenant();
    const b = await sut.api.tenant();
    for (let i = 0; i < 3; i += 1) {
      await sut.api.request('POST', '/api/v1/catalog/entities', { key: a.key, body: { type: 'song', title: `A${i}` } });
    }
    const page = await sut.api.request('GET', '/api/v1/catalog/entities?limit=1', { key: a.key });
    expect(page.body.hasMore).toBe(true);
    const replayed = await sut.api.request('GET', `/api/v1/catalog/entities?after=${encodeURIComponent(page.body.nextCursor)}`, {
      key: b.key,
    });
    // The cursor only names a position; the listing after it stays within B's tenant: none of A's.
    expect({ status: replayed.status, entities: replayed.body.entities }).toEqual({ status: 200, entities: [] });
  });
});
