import { apiClient, expectError } from '../support/api.js';
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
    expectError(await create({ rawBody: '{"type": "song", "title": ' }), 400, 'invalid_json');
  });

  test('wrong types → 400 with the offending fields', async () => {
    const response = await create({ body: { type: 'song', title: 42, artist: ['x'] } });
    expectError(response, 400, 'invalid_body');
    const paths = response.body.error.details.fields.map((f: { path: string }) => f.path).sort();
    expect(paths).toEqual(['/artist', '/title']);
  });

  test('unknown fields → 400 naming them', async () => {
    const response = await create({ body: { type: 'song', title: 'x', colour: 'blue' } });
    expectError(response, 400, 'invalid_body');
    expect(response.body.error.details.fields).toEqual([{ location: 'body', path: '/colour', message: 'is not a known field' }]);
  });

  test('missing required fields and a missing body → 400', async () => {
    expectError(await create({ body: { type: 'song' } }), 400, 'invalid_body');
    expectError(await create({}), 400, 'invalid_body');
    expectError(await create({ body: [] }), 400, 'invalid_body');
    expectError(await create({ body: null }), 400, 'invalid_body');
  });

  test('oversized bodies → 413', async () => {
    expectError(await create({ body: { type: 'song', title: 'x'.repeat(10_000) } }), 413, 'payload_too_large');
  });

  test('a body that is not JSON → 415', async () => {
    expectError(
      await create({ rawBody: 'type=song', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
  });

  test('bad query parameters → 400', async () => {
    const cases: Array<[string, string]> = [
      ['limit=0', 'invalid_query'],
      ['limit=201', 'invalid_query'],
      ['limit=abc', 'invalid_query'],
      ['colour=blue', 'invalid_query'],
      ['after=%%%', 'invalid_cursor'],
      ['limit=1&limit=2', 'invalid_query'],
    ];
    for (const [query, code] of cases) {
      const response = await api.request('GET', `/api/v1/catalog/entities?${query}`, { key });
      expect([query, response.status, response.body.error?.code]).toEqual([query, 400, code]);
    }
  });

  test('a malformed id is an unknown id → 404', async () => {
    expectError(await api.request('GET', '/api/v1/catalog/entities/not-a-uuid', { key }), 404, 'not_found');
  });

  test('unknown paths → 404, wrong methods → 405', async () => {
    expectError(await api.request('GET', '/api/v1/catalog/nothing-here', { key }), 404, 'route_not_found');
    const wrong = await api.request('PUT', '/api/v1/catalog/entities', { key, body: {} });
    expectError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toContain('GET');
  });

  test('nothing was half-written by the rejected requests', async () => {
    const response = await api.request('GET', '/api/v1/catalog/entities', { key });
    expect(response.body.entities).toEqual([]);
  });
});
