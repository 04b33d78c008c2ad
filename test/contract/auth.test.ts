import { randomUUID } from 'node:crypto';
import { routes, type Permission, type Product, type RouteDefinition } from '@catalog/contracts';
import { expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

const sut = useSystem();

const list = (key?: string) => sut.api.request('GET', '/api/v1/catalog/entities', key === undefined ? {} : { key });

describe('authentication (part 5)', () => {
  test('a valid key with catalog:api on a catalog plan is served', async () => {
    const { key } = await sut.api.tenant();
    const response = await list(key);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ entities: [], nextCursor: null, hasMore: false });
  });

  test('missing key → 401', async () => {
    expectError(await list(), 401, 'unauthorized');
  });

  test('malformed keys and headers → 401', async () => {
    const { key } = await sut.api.tenant();
    for (const bad of ['sk_nope', key.slice(0, -1), `${key}x`, key.replace('sk_', 'pk_'), 'Basic abc']) {
      expectError(await list(bad), 401, 'unauthorized');
    }
    expectError(await sut.api.request('GET', '/api/v1/catalog/entities', { headers: { authorization: key } }), 401, 'unauthorized');
    expectError(await sut.api.request('GET', '/api/v1/catalog/entities', { headers: { authorization: 'Bearer' } }), 401, 'unauthorized');
  });

  test('a well-formed key with a wrong secret → 401', async () => {
    const { key } = await sut.api.tenant();
    const forged = `${key.slice(0, 35)}${'A'.repeat(43)}`;
    expectError(await list(forged), 401, 'unauthorized');
  });

  test('a revoked key stops working on the next request', async () => {
    const { key, keyId } = await sut.api.tenant();
    expect((await list(key)).status).toBe(200);
    expect((await sut.api.admin('DELETE', `/admin/v1/api-keys/${keyId}`)).status).toBe(204);
    expectError(await list(key), 401, 'unauthorized');
    expectError(await sut.api.admin('DELETE', `/admin/v1/api-keys/${keyId}`), 404, 'not_found');
  });

  test('a rotated key: the old secret stops at once, the new one works with the same key id', async () => {
    const { key, keyId } = await sut.api.tenant();
    const rotated = await sut.api.admin('POST', `/admin/v1/api-keys/${keyId}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(keyId);
    expect(rotated.body.key).not.toBe(key);
    expectError(await list(key), 401, 'unauthorized');
    expect((await list(rotated.body.key)).status).toBe(200);
  });

  test('a key without catalog:api → 403', async () => {
    const { key } = await sut.api.tenant({ permissions: ['library:api'] });
    const response = await list(key);
    expectError(response, 403, 'forbidden');
    expect(response.body.error.details).toEqual({ requiredPermission: 'catalog:api' });
  });

  test('an organisation without the catalog product → 402; adding it to the plan opens access', async () => {
    const { key, orgId } = await sut.api.tenant({ products: ['library'] });
    expectError(await list(key), 402, 'plan_required');
    expect((await sut.api.admin('PATCH', `/admin/v1/organizations/${orgId}`, { products: ['library', 'catalog'] })).status).toBe(200);
    expect((await list(key)).status).toBe(200);
  });

  test('the admin API needs the admin token', async () => {
    expectError(await sut.api.request('POST', '/admin/v1/organizations', { body: { name: 'x', products: [] } }), 401, 'unauthorized');
    const { key } = await sut.api.tenant();
    expectError(await sut.api.request('POST', '/admin/v1/organizations', { key, body: { name: 'x', products: [] } }), 401, 'unauthorized');
  });

  test('keys are listed without secrets', async () => {
    const { orgId, keyId } = await sut.api.tenant();
    const listed = await sut.api.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`);
    expect(listed.status).toBe(200);
    expect(listed.body.apiKeys).toHaveLength(1);
    expect(listed.body.apiKeys[0].id).toBe(keyId);
    expect(JSON.stringify(listed.body)).not.toMatch(/sk_|secret/);
  });

  test('the OpenAPI document is public and lists every operation', async () => {
    const response = await sut.api.request('GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.paths['/api/v1/catalog/entities'].post.operationId).toBe('createEntity');
  });
});

const PERMISSIONS = ['catalog:api', 'catalog:analysis', 'library:api'] as const satisfies readonly Permission[];
const PRODUCTS = ['catalog', 'library'] as const satisfies readonly Product[];

/** The route's path with each parameter filled in (an id no one has: authentication comes before any lookup). */
const pathOf = (route: RouteDefinition): string => route.path.replace(/\{[^}]+\}/g, () => randomUUID());

/** A request of the route as a client would send it, with `key` (none when undefined). */
const send = (route: RouteDefinition, key?: string) =>
  sut.api.request(route.method, pathOf(route), {
    ...(key === undefined ? {} : { key }),
    ...(route.body ? { body: {} } : {}),
  });

describe('every route of the route table', () => {
  const apiKeyRoutes = (routes as readonly RouteDefinition[]).flatMap((route) =>
    route.auth.kind === 'apiKey' ? [{ route, auth: route.auth }] : [],
  );
  const adminRoutes = (routes as readonly RouteDefinition[]).filter((route) => route.auth.kind === 'admin');
  const name = (route: RouteDefinition) => `${route.method} ${route.path}`;

  test('the table has API-key routes of every area and admin routes', () => {
    const paths = apiKeyRoutes.map(({ route }) => route.path);
    for (const area of ['relations', 'molecules', 'integrations', 'jobs', 'entity-types', 'markers', 'credits', 'analyses', 'library']) {
      expect({ area, found: paths.some((path) => path.includes(`/${area}`)) }).toEqual({ area, found: true });
    }
    expect(adminRoutes.length).toBeGreaterThan(0);
  });

  test('an API-key route without a key, or with a key of a wrong secret, answers 401', async () => {
    const { key } = await sut.api.tenant();
    const forged = `${key.slice(0, 35)}${'A'.repeat(43)}`;
    for (const { route } of apiKeyRoutes) {
      for (const used of [undefined, forged]) {
        const response = await send(route, used);
        expect({ route: name(route), status: response.status }).toEqual({ route: name(route), status: 401 });
        expectError(response, 401, 'unauthorized');
      }
    }
  });

  test("an API-key route answers 403 to a key without the route's permission, on a plan with every product", async () => {
    for (const permission of PERMISSIONS) {
      const { key } = await sut.api.tenant({ products: [...PRODUCTS], permissions: PERMISSIONS.filter((p) => p !== permission) });
      for (const { route } of apiKeyRoutes.filter(({ auth }) => auth.permission === permission)) {
        const response = await send(route, key);
        expect({ route: name(route), status: response.status }).toEqual({ route: name(route), status: 403 });
        expectError(response, 403, 'forbidden');
        expect(response.body.error.details).toEqual({ requiredPermission: permission });
      }
    }
  });

  test('an API-key route that needs the product answers 402 to a key with every permission whose plan lacks it', async () => {
    for (const product of PRODUCTS) {
      const { key } = await sut.api.tenant({ products: PRODUCTS.filter((p) => p !== product), permissions: [...PERMISSIONS] });
      for (const { route, auth } of apiKeyRoutes.filter(({ auth }) => auth.product === product)) {
        const response = await send(route, key);
        const status = auth.entitlement ? 402 : response.status;
        expect({ route: name(route), status: response.status }).toEqual({ route: name(route), status });
        if (auth.entitlement) {
          expectError(response, 402, 'plan_required');
          expect(response.body.error.details).toEqual({ product });
        } else {
          // Without the entitlement check (the events feed) the plan is never asked.
          expect(response.status).not.toBe(402);
        }
      }
    }
  });

  test('an admin route answers 401 without the admin token, and to an API key', async () => {
    const { key } = await sut.api.tenant({ products: [...PRODUCTS], permissions: [...PERMISSIONS] });
    for (const route of adminRoutes) {
      for (const used of [undefined, key]) {
        const response = await send(route, used);
        expect({ route: name(route), status: response.status }).toEqual({ route: name(route), status: 401 });
        expectError(response, 401, 'unauthorized');
      }
    }
  });
});
