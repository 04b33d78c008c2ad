import { apiClient } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let key: string;

beforeAll(async () => {
  system = await startSystem({ BODY_LIMIT_BYTES: '4096' });
  api = apiClient(system.baseUrl);
  ({ key } = await api.tenant());
});
afterAll(() => system.stop());

const create = (options: { body?: unknown; rawBody?: string; headers?: Record<string, string> }) =>
  api.request('POST', '/api/v1/catalog/entities', { key, ...options });

describe('bad input gets a 4xx with the error body, never a 500', () => {
  test('invalid JSON → 400 invalid_json', async () => {
    const response = await create({ rawBody: '{"type": "song", "title": ' });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_json');
  });

  test('wrong types → 400 with the offending fields', async () => {
    const response = await create({ body: { type: 'song', title: 42, artist: ['x'] } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_body');
    const paths = response.body.error.details.fields.map((f: { path: string }) => f.path).sort();
    expect(paths).toEqual(['/artist', '/title']);
  });

  test('unknown fields → 400 naming them', async () => {
    const response = await create({ body: { type: 'song', title: 'x', colour: 'blue' } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.fields).toEqual([{ location: 'body', path: '/colour', message: 'is not a known field' }]);
  });

  test('missing required fields and a missing body → 400', async () => {
    expect((await create({ body: { type: 'song' } })).status).toBe(400);
    expect((await create({})).status).toBe(400);
    expect((await create({ body: [] })).status).toBe(400);
    expect((await create({ body: null })).status).toBe(400);
  });

  test('oversized bodies → 413', async () => {
    const response = await create({ body: { type: 'song', title: 'x'.repeat(10_000) } });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });

  test('a body that is not JSON → 415', async () => {
    const response = await create({ rawBody: 'type=song', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.status).toBe(415);
  });

  test('bad query parameters → 400', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'colour=blue', 'after=%%%', 'limit=1&limit=2']) {
      const response = await api.request('GET', `/api/v1/catalog/entities?${query}`, { key });
      expect([query, response.status]).toEqual([query, 400]);
      expect(response.body.error.code).toMatch(/^invalid_(query|cursor)$/);
    }
  });

  test('a malformed id is an unknown id → 404', async () => {
    const response = await api.request('GET', '/api/v1/catalog/entities/not-a-uuid', { key });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  test('unknown paths → 404, wrong methods → 405', async () => {
    expect((await api.request('GET', '/api/v1/catalog/nothing-here', { key })).status).toBe(404);
    const wrong = await api.request('PUT', '/api/v1/catalog/entities', { key, body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
  });

  test('nothing was half-written by the rejected requests', async () => {
    const response = await api.request('GET', '/api/v1/catalog/entities', { key });
    expect(response.body.entities).toEqual([]);
  });
});
