import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { newId, readConfig, type ServiceRuntime } from '@catalog/platform';
import {
  createTestDatabase,
  eventually,
  listeningPort,
  serviceEnvironment,
  testBus,
  testInfrastructure,
  testLogger,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';
import { catalogConfig, startCatalogService } from '@catalog/catalog';
import { subjectsFor, type NatsConnection, type OutboxRelay } from '@catalog/platform';
import { eventsEnv, killHard, repoRoot, startEvents, startProducer, type Producer } from './support.js';
import type { EventsDb } from '../src/persistence/tables.js';

/**
 * The feed through the public HTTP API: two gateway processes (separate OS processes, so the
 * feed's rate limit can only be shared through the database), the catalog service writing
 * entities, the events service, and the admin API for organisations and keys.
 */
const ADMIN_TOKEN = 'events-api-test-admin-token';
let testDb: TestDatabase;
const gatewayProcesses: ChildProcess[] = [];
const gatewayUrls: string[] = [];
let catalog: ServiceRuntime<unknown>;
let events: ServiceRuntime<EventsDb>;
let producer: Producer;
let producerRelay: OutboxRelay;
let nc: NatsConnection;
const prefix = uniqueNatsPrefix('evapi');

interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

async function request<T = any>(base: string, method: string, path: string, key?: string, body?: unknown): Promise<Response<T>> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as T) : (null as T) };
}

const api = (i = 0) => gatewayUrls[i]!;
const admin = (method: string, path: string, body?: unknown) => request(api(), method, path, ADMIN_TOKEN, body);

async function tenant(options: { products?: string[]; permissions?: string[] } = {}) {
  const org = await admin('POST', '/admin/v1/organizations', { name: 'Radio', products: options.products ?? ['catalog'] });
  expect(org.status).toBe(201);
  const key = await admin('POST', `/admin/v1/organizations/${org.body.id}/api-keys`, {
    name: 'k',
    permissions: options.permissions ?? ['catalog:api'],
  });
  expect(key.status).toBe(201);
  return { orgId: org.body.id as string, keyId: key.body.id as string, key: key.body.key as string };
}

async function newKey(orgId: string): Promise<{ keyId: string; key: string }> {
  const key = await admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, { name: 'k', permissions: ['catalog:api'] });
  return { keyId: key.body.id, key: key.body.key };
}

/** Every event of the key's tenant (a fresh key each time, so the feed limit is not a concern). */
async function feedOf(orgId: string, query = ''): Promise<any[]> {
  const { key } = await newKey(orgId);
  const all: any[] = [];
  let after = '';
  for (;;) {
    const page = await request(api(), 'GET', `/api/v1/catalog/events?limit=500${query}${after ? `&after=${after}` : ''}`, key);
    expect(page.status).toBe(200);
    all.push(...page.body.events);
    if (page.body.nextCursor) after = page.body.nextCursor;
    if (!page.body.hasMore) return all;
  }
}

async function eventuallyFeed(orgId: string, count: number): Promise<any[]> {
  return eventually(async () => {
    const all = await feedOf(orgId);
    return all.length >= count ? all : undefined;
  }, 20_000);
}

beforeAll(async () => {
  testDb = await createTestDatabase('eventsapi');
  const env: Record<string, string> = {
    ...(await serviceEnvironment(testDb, ['catalog', 'gateway'])),
    ...(await eventsEnv(testDb, testInfrastructure().natsUrl, prefix)),
    ADMIN_TOKEN,
    PORT: '0',
    CATALOG_HTTP_PORT: '0',
    GATEWAY_HTTP_PORT: '0',
  };
  const logger = testLogger('api');
  catalog = (await startCatalogService(readConfig(catalogConfig, env), { logger })) as ServiceRuntime<unknown>;
  events = await startEvents(env);
  // Each gateway binds a port of its choosing and says which in its `http listening` line; both start at once.
  const gateway = () =>
    spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(repoRoot, 'services', 'gateway', 'src', 'main.ts')], {
      cwd: repoRoot,
      env: { ...process.env, NODE_OPTIONS: '', ...env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  gatewayProcesses.push(gateway(), gateway());
  const ports = await Promise.all(gatewayProcesses.map((child) => listeningPort(child, 150_000)));
  gatewayUrls.push(...ports.map((port) => `http://127.0.0.1:${port}`));
  for (const url of gatewayUrls)
    await eventually(
      () =>
        fetch(`${url}/readyz`).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      60_000,
      100,
    );
  producer = await startProducer(testDb.url);
  nc = await testBus('events-api-test');
  producerRelay = producer.startRelay(nc, subjectsFor(prefix));
}, 240_000); // two gateway processes from source: minutes on a busy machine

afterAll(async () => {
  await producerRelay?.stop();
  await nc?.drain();
  await producer?.close();
  for (const child of gatewayProcesses) await killHard(child);
  await events?.stop();
  await catalog?.stop();
  await testDb.drop();
});

describe('GET /api/v1/catalog/events', () => {
  test('entity writes through the API appear in the feed with sourceSystem public-api:<keyId>', async () => {
    const t = await tenant();
    const created = await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'One' });
    expect(created.status).toBe(201);
    const [event] = await eventuallyFeed(t.orgId, 1);
    const page = await request(api(1), 'GET', '/api/v1/catalog/events', (await newKey(t.orgId)).key);
    expect(page.headers.get('content-type')).toMatch(/^application\/json/);
    expect(page.body.events).toEqual([event]);
    expect(event).toMatchObject({
      type: 'entity.created',
      product: 'catalog',
      resourceKind: 'entity',
      resourceId: created.body.id,
      dmrn: null,
      sourceSystem: `public-api:${t.keyId}`,
      schemaVersion: 1,
    });
    expect(Object.keys(event).sort()).toEqual(
      [
        'batchId',
        'data',
        'dmrn',
        'id',
        'occurredAt',
        'product',
        'resourceId',
        'resourceKind',
        'schemaVersion',
        'sourceSystem',
        'type',
      ].sort(),
    );
    expect(JSON.stringify(event)).not.toContain(t.key);
  });

  test('a key bound to a source system writes events carrying that name', async () => {
    const t = await tenant();
    const integration = await request(api(), 'POST', '/api/v1/catalog/integrations', t.key, { name: 'playout-zetta', kind: 'playout' });
    const bound = await admin('PUT', `/admin/v1/api-keys/${t.keyId}/source-system`, { integrationId: integration.body.id });
    expect(bound.status).toBe(200);
    await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'Bound' });
    const [created, event] = await eventuallyFeed(t.orgId, 2);
    expect(created).toMatchObject({ type: 'integration.created', sourceSystem: `public-api:${t.keyId}` });
    expect(event).toMatchObject({ type: 'entity.created', sourceSystem: 'playout-zetta' });
  });

  test('attaching a DMRN records entity.updated with changedFields ["externalReferences"]; re-attaching records nothing', async () => {
    const t = await tenant();
    const entity = await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'Ref' });
    const path = `/api/v1/catalog/entities/${entity.body.id}/external-references/dmrn`;
    expect((await request(api(), 'PUT', path, t.key, { value: 'DMRN-42' })).status).toBe(200);
    expect((await request(api(), 'PUT', path, t.key, { value: 'DMRN-42' })).status).toBe(200);
    // A later write, so that a (wrong) event of the re-attach would have shown up before it.
    await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'After' });
    const all = await eventuallyFeed(t.orgId, 3);
    expect(all.map((e) => e.type)).toEqual(['entity.created', 'entity.updated', 'entity.created']);
    expect(all[1]).toMatchObject({ resourceId: entity.body.id, dmrn: 'DMRN-42', data: { changedFields: ['externalReferences'] } });
  });

  test('tenant isolation: each tenant sees only its own events', async () => {
    const a = await tenant();
    const b = await tenant();
    const ea = await request(api(), 'POST', '/api/v1/catalog/entities', a.key, { type: 'song', title: 'A' });
    const eb = await request(api(), 'POST', '/api/v1/catalog/entities', b.key, { type: 'song', title: 'B' });
    expect((await eventuallyFeed(a.orgId, 1)).map((e) => e.resourceId)).toEqual([ea.body.id]);
    expect((await eventuallyFeed(b.orgId, 1)).map((e) => e.resourceId)).toEqual([eb.body.id]);
  });

  test('product isolation: library events of the tenant never appear in the catalog feed', async () => {
    const t = await tenant({ products: ['catalog', 'library'] });
    await producer.write(t.orgId, [{ type: 'track.updated', resourceId: newId(), dmrn: null, data: { changedFields: ['title'] } }]);
    const created = await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'Cat' });
    const all = await eventuallyFeed(t.orgId, 1);
    // The library event was written first; the catalog event is visible, so it would be too.
    expect(all.map((e) => e.resourceId)).toEqual([created.body.id]);
  });

  test('every 400 of part 7: limit outside 1..500, unknown type, malformed or foreign cursor', async () => {
    const t = await tenant();
    const other = await tenant();
    await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'x' });
    await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'y' });
    await eventuallyFeed(t.orgId, 2);
    const get = (query: string, key = t.key) => request(api(), 'GET', `/api/v1/catalog/events${query}`, key);
    for (const query of ['?limit=0', '?limit=501', '?limit=-1', '?limit=abc', '?limit=1.5']) {
      const r = await get(query);
      expect([query, r.status, r.body.error.code]).toEqual([query, 400, 'invalid_query']);
    }
    expect((await get('?limit=1')).status).toBe(200);
    expect((await get('?limit=500')).status).toBe(200);
    const unknown = await get('?types=entity.created,entity.teleported');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_event_type', details: { unknownTypes: ['entity.teleported'] } });
    expect((await get('?types=ping')).body).toEqual({ events: [], nextCursor: null, hasMore: false });
    expect((await get('?after=definitely-not-a-cursor')).body.error.code).toBe('invalid_cursor');
    expect((await get('?after=')).status).toBe(400);
    const cursor = (await get('?limit=1')).body.nextCursor as string;
    const foreign = await get(`?after=${cursor}`, other.key);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('invalid_cursor');
    expect((await get('?unknown=1')).status).toBe(400);
  });

  test('long poll: wait holds an empty page until an event is visible, else answers it empty; wait above 30 is a 400', async () => {
    const t = await tenant();
    await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'Before' });
    const [before] = await eventuallyFeed(t.orgId, 1);
    const first = await request(api(), 'GET', '/api/v1/catalog/events', t.key);
    const cursor = first.body.nextCursor as string;
    expect(first.body.events.map((e: { id: string }) => e.id)).toEqual([before.id]);

    // Nothing after the cursor: after the wait, the empty page.
    expect((await request(api(1), 'GET', `/api/v1/catalog/events?after=${cursor}&wait=1`, t.key)).body).toEqual({
      events: [],
      nextCursor: null,
      hasMore: false,
    });

    // An event written while the request is held: it is the answer, long before the wait is over.
    const startedAt = Date.now();
    const held = request(api(), 'GET', `/api/v1/catalog/events?after=${cursor}&wait=30`, t.key);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const created = await request(api(), 'POST', '/api/v1/catalog/entities', t.key, { type: 'song', title: 'During' });
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(answer.body.events.map((e: { type: string; resourceId: string }) => [e.type, e.resourceId])).toEqual([
      ['entity.created', created.body.id],
    ]);
    expect(Date.now() - startedAt).toBeLessThan(30_000);

    for (const query of ['?wait=31', '?wait=-1', '?wait=1.5', '?wait=soon']) {
      const refused = await request(api(), 'GET', `/api/v1/catalog/events${query}`, t.key);
      expect([query, refused.status, refused.body.error.code]).toEqual([query, 400, 'invalid_query']);
    }
  }, 60_000);

  test('a long poll counts once against the feed limit however long it is held', async () => {
    const t = await tenant();
    const statuses: number[] = [];
    for (let i = 0; i < 59; i += 1) statuses.push((await request(api(i % 2), 'GET', '/api/v1/catalog/events?limit=1', t.key)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The 60th request waits two seconds (the server reads its page several times): still one request.
    expect((await request(api(), 'GET', '/api/v1/catalog/events?wait=2', t.key)).status).toBe(200);
    expect((await request(api(1), 'GET', '/api/v1/catalog/events', t.key)).status).toBe(429);
  });

  test('auth: 401 without a key, 403 without catalog:api, no plan entitlement check (no 402)', async () => {
    expect((await request(api(), 'GET', '/api/v1/catalog/events')).status).toBe(401);
    const libraryOnly = await tenant({ products: ['library'], permissions: ['library:api'] });
    expect((await request(api(), 'GET', '/api/v1/catalog/events', libraryOnly.key)).status).toBe(403);
    const noCatalogPlan = await tenant({ products: [], permissions: ['catalog:api'] });
    expect((await request(api(), 'GET', '/api/v1/catalog/events', noCatalogPlan.key)).status).toBe(200);
  });

  test('60 requests per minute per key shared by two gateway processes, then 429 with Retry-After', async () => {
    const t = await tenant();
    // Requests with the key's id and a wrong secret are refused and never count against its limit.
    const wrongSecret = `${t.key.slice(0, -43)}${'A'.repeat(43)}`;
    for (let i = 0; i < 5; i += 1)
      expect((await request(api(i % 2), 'GET', '/api/v1/catalog/events?limit=1', wrongSecret)).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i += 1) statuses.push((await request(api(i % 2), 'GET', '/api/v1/catalog/events?limit=1', t.key)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (const i of [0, 1]) {
      const limited = await request(api(i), 'GET', '/api/v1/catalog/events', t.key);
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // The limit is per key: another key of the same tenant is not affected.
    const other = await newKey(t.orgId);
    expect((await request(api(1), 'GET', '/api/v1/catalog/events', other.key)).status).toBe(200);
    // Other operations of the same key are not limited by the feed's limit.
    expect((await request(api(0), 'GET', '/api/v1/catalog/entities', t.key)).status).toBe(200);
  });
});
