import { ALLOWED_CONTENT_TYPES } from '@catalog/contracts';
import { apiClient } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let key: string;

beforeAll(async () => {
  system = await startSystem();
  api = apiClient(system.baseUrl);
  ({ key } = await api.tenant());
});
afterAll(() => system.stop());

/** The OpenAPI document says what the gateway enforces (decision 0051); the fuzz test checks it at large. */
describe('the OpenAPI document and the gateway agree', () => {
  test('a path written out wins over a templated one: an undeclared method on it is 405 with Allow', async () => {
    for (const method of ['PATCH', 'GET', 'DELETE', 'PUT']) {
      const answer = await api.request(method, '/api/v1/catalog/entities/batch', {
        key,
        body: method === 'GET' || method === 'DELETE' ? undefined : { entities: [] },
      });
      expect({ method, status: answer.status, code: answer.body.error.code, allow: answer.headers.get('allow') }).toEqual({
        method,
        status: 405,
        code: 'method_not_allowed',
        allow: 'POST',
      });
    }
    const options = await api.request('OPTIONS', '/api/v1/catalog/entities/{id}'.replace('{id}', '0190a1b2-0000-7000-8000-000000000001'), {
      key,
    });
    expect(options.status).toBe(405);
    expect(options.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
  });

  test('an operation that takes no body refuses one with 400 invalid_body, whatever its type or size', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/json' }]) {
      const path = '/api/v1/catalog/integrations/0190a1b2-0000-7000-8000-000000000001/assignments/0190a1b2-0000-7000-8000-000000000002';
      const answer = await api.request('PUT', path, {
        key,
        rawBody: 'x'.repeat(2_000_000),
        headers,
      });
      expect({ headers, status: answer.status, code: answer.body.error.code }).toEqual({ headers, status: 400, code: 'invalid_body' });
    }
  });

  test('every operation lists the statuses it can answer; content types and cursors have their shapes', async () => {
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body;
    type Operation = { requestBody?: unknown; responses: Record<string, { headers?: Record<string, unknown> }> };
    for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const statuses = Object.keys(operation.responses).map(Number);
        const expected = [400, 429, 401];
        if (path.includes('{')) expected.push(404);
        if (operation.requestBody) expected.push(408, 413, 415);
        if (!path.startsWith('/admin/')) expected.push(403, 503, 504);
        expect({ operation: `${method} ${path}`, missing: expected.filter((s) => !statuses.includes(s)) }).toEqual({
          operation: `${method} ${path}`,
          missing: [],
        });
        expect(operation.responses['429']?.headers?.['Retry-After']).toBeDefined();
      }
    }
    const upload = doc.paths['/api/v1/catalog/assets'].post.requestBody.content['application/json'].schema.properties.upload;
    expect(upload.properties.contentType.enum).toEqual(Object.values(ALLOWED_CONTENT_TYPES).flat());
    const after = doc.paths['/api/v1/catalog/events'].get.parameters.find((p: { name: string }) => p.name === 'after');
    expect(after.schema.pattern).toBe('^[A-Za-z0-9_-]+$');
  });
});
