import { eventually, sineWav, type ApiResponse, type TestTenant } from '@catalog/testing';
import { confirmUpload, expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

/**
 * Idempotency-Key on every POST that creates something (decision 0119): retries
 * with one key make one resource and get the same answer, the key with another request is 409, keys
 * are per organisation (the admin area is a scope of its own) and expire after 24 hours.
 */
const sut = useSystem({ env: { IDEMPOTENCY_KEY_PRUNE_INTERVAL_MS: '200' }, database: true });

const ANALYST = ['catalog:api', 'catalog:analysis'];
let wav: Buffer;
beforeAll(async () => {
  wav = await sineWav(1, { sampleRate: 8_000 });
});

/** A tenant with an entity and an ONLINE standalone file, and credits for analyses. */
interface Fixture extends TestTenant {
  entityId: string;
  assetId: string;
}

async function fixture(): Promise<Fixture> {
  const tenant = await sut.api.tenant({ permissions: ANALYST });
  const entity = await sut.api.request('POST', '/api/v1/catalog/entities', { key: tenant.key, body: { type: 'song', title: 'Base' } });
  const upload = { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length };
  const asset = await sut.api.request('POST', '/api/v1/catalog/assets', { key: tenant.key, body: { retention: 'standalone', upload } });
  expect((await fetch(asset.body.upload.url, { method: 'PUT', headers: asset.body.upload.headers, body: wav })).status).toBe(200);
  expect((await confirmUpload(sut.api, tenant.key, asset.body.id)).status).toBe(200);
  expect((await sut.api.admin('POST', `/admin/v1/organizations/${tenant.orgId}/credits`, { amount: 100, reason: 'test' })).status).toBe(
    201,
  );
  return { ...tenant, entityId: entity.body.id, assetId: asset.body.id };
}

/** A create route: its request (`variant` changes the body) and how many it made, read back. */
interface CreateRoute {
  name: string;
  /** Resources one request makes (the batch: two entities). */
  makes?: number;
  post(f: Fixture, idempotencyKey: string, variant?: number): Promise<ApiResponse>;
  count(f: Fixture): Promise<number>;
}

const post = (f: Fixture, path: string, body: unknown, idempotencyKey: string) =>
  sut.api.request('POST', path, { key: f.key, body, headers: { 'Idempotency-Key': idempotencyKey } });
const admin = (path: string, body: unknown, idempotencyKey: string) =>
  sut.api.request('POST', path, { key: 'system-test-admin-token', body, headers: { 'Idempotency-Key': idempotencyKey } });
const get = async (f: Fixture, path: string) => (await sut.api.request('GET', path, { key: f.key })).body;
const rows = async (text: string, values: unknown[]) => Number((await sut.db.query(text, values)).rows[0].count);

const ROUTES: CreateRoute[] = [
  {
    name: 'entities',
    post: (f, k, v = 0) => post(f, '/api/v1/catalog/entities', { type: 'song', title: `Song ${v}` }, k),
    count: async (f) => (await get(f, '/api/v1/catalog/entities?limit=100')).entities.length,
  },
  {
    name: 'entities/batch',
    makes: 2,
    post: (f, k, v = 0) =>
      post(
        f,
        '/api/v1/catalog/entities/batch',
        {
          entities: [
            { type: 'song', title: `A ${v}` },
            { type: 'jingle', title: 'B' },
          ],
        },
        k,
      ),
    count: async (f) => (await get(f, '/api/v1/catalog/entities?limit=100')).entities.length,
  },
  {
    name: 'versions',
    post: (f, k, v = 0) => {
      const upload = { filename: `edit-${v}.wav`, contentType: 'audio/wav', size: 10 };
      return post(
        f,
        `/api/v1/catalog/entities/${f.entityId}/versions`,
        { source: { upload }, label: `Edit ${v}`, versionType: 'radio_edit' },
        k,
      );
    },
    count: async (f) => (await get(f, `/api/v1/catalog/entities/${f.entityId}/versions`)).versions.length,
  },
  {
    name: 'assets',
    post: (f, k, v = 0) =>
      post(
        f,
        '/api/v1/catalog/assets',
        { retention: 'standalone', upload: { filename: `f${v}.wav`, contentType: 'audio/wav', size: 10 } },
        k,
      ),
    count: (f) => rows('select count(*) from asset.assets where tenant_id = $1', [f.orgId]),
  },
  {
    name: 'analyses',
    post: (f, k, v = 0) =>
      post(f, '/api/v1/catalog/analyses', { type: v === 0 ? 'technical' : 'loudness', source: { assetId: f.assetId } }, k),
    count: async (f) => (await get(f, `/api/v1/catalog/analyses?assetId=${f.assetId}&limit=200`)).analyses.length,
  },
  {
    name: 'admin organisations',
    post: (f, k, v = 0) => admin('/admin/v1/organizations', { name: `Org ${f.orgId} ${v}`, products: ['catalog'] }, k),
    count: (f) => rows('select count(*) from gateway.organizations where name like $1', [`Org ${f.orgId} %`]),
  },
  {
    name: 'admin api-keys',
    post: (f, k, v = 0) => admin(`/admin/v1/organizations/${f.orgId}/api-keys`, { name: `key ${v}`, permissions: ['catalog:api'] }, k),
    count: async (f) => (await sut.api.admin('GET', `/admin/v1/organizations/${f.orgId}/api-keys`)).body.apiKeys.length,
  },
  {
    name: 'admin credits',
    post: (f, k, v = 0) => admin(`/admin/v1/organizations/${f.orgId}/credits`, { amount: 1 + v, reason: 'retry' }, k),
    count: async (f) => (await sut.api.admin('GET', `/admin/v1/organizations/${f.orgId}/credits`)).body.entries.length,
  },
  {
    name: 'molecules',
    post: (f, k, v = 0) => post(f, '/api/v1/catalog/molecules', { title: `Molecule ${v}`, elements: [{ entityId: f.entityId }] }, k),
    count: async (f) => (await get(f, '/api/v1/catalog/molecules?limit=100')).molecules.length,
  },
];

const replayed = (response: ApiResponse) => response.headers.get('idempotent-replayed');

describe.each(ROUTES)('POST $name with an Idempotency-Key', (route) => {
  test('two concurrent requests with one key make one resource and get the same answer; the key with another body is 409', async () => {
    const f = await fixture();
    const before = await route.count(f);
    const makes = route.makes ?? 1;
    // The admin area is one scope: keys of its own per test.
    const [one, two] = [`retry-1-${f.orgId}`, `retry-2-${f.orgId}`];
    const [first, second] = await Promise.all([route.post(f, one), route.post(f, one)]);
    expect(first.status).toBeLessThan(300);
    expect({ status: second.status, body: second.body }).toEqual({ status: first.status, body: first.body });
    expect([replayed(first), replayed(second)].sort()).toEqual([null, 'true']);
    const third = await route.post(f, one);
    expect({ status: third.status, body: third.body, replayed: replayed(third) }).toEqual({
      status: first.status,
      body: first.body,
      replayed: 'true',
    });
    expect(await route.count(f)).toBe(before + makes);

    expectError(await route.post(f, one, 1), 409, 'idempotency_key_reused');
    expect(await route.count(f)).toBe(before + makes);
    // Another key is another request.
    expect((await route.post(f, two, 1)).status).toBe(first.status);
    expect(await route.count(f)).toBe(before + 2 * makes);
  });
});

test('one key in two organisations names two requests; the same key on another route is 409 idempotency_key_reused', async () => {
  const [a, b] = await Promise.all([fixture(), fixture()]);
  const [inA, inB] = await Promise.all([ROUTES[0]!.post(a, 'shared-key'), ROUTES[0]!.post(b, 'shared-key')]);
  expect([inA.status, inB.status, replayed(inA), replayed(inB)]).toEqual([201, 201, null, null]);
  expect(inA.body.id).not.toBe(inB.body.id);
  expect(await ROUTES[0]!.count(b)).toBe(2);
  expectError(await ROUTES[3]!.post(a, 'shared-key'), 409, 'idempotency_key_reused');
});

test('a key that is not 1-255 visible ASCII characters is 400 invalid_header, and nothing is created', async () => {
  const f = await fixture();
  for (const bad of ['', 'has space', 'tab\tinside', 'x'.repeat(256)]) {
    expectError(await post(f, '/api/v1/catalog/entities', { type: 'song', title: 'X' }, bad), 400, 'invalid_header');
  }
  expect((await post(f, '/api/v1/catalog/entities', { type: 'song', title: 'X' }, 'x'.repeat(255))).status).toBe(201);
  expect(await ROUTES[0]!.count(f)).toBe(2);
});

test('a 4xx is kept and replayed; a 5xx is not: the retry runs', async () => {
  const f = await fixture();
  const unknown = `/api/v1/catalog/entities/00000000-0000-4000-8000-000000000000/versions`;
  const body = {
    source: { upload: { filename: 'edit.wav', contentType: 'audio/wav', size: 10 } },
    label: 'Edit',
    versionType: 'radio_edit',
  };
  expectError(await post(f, unknown, body, 'missing'), 404, 'not_found');
  const again = await post(f, unknown, body, 'missing');
  expectError(again, 404, 'not_found');
  expect(replayed(again)).toBe('true');

  await sut.system.stopCatalog();
  try {
    expect((await ROUTES[0]!.post(f, 'down')).status).toBeGreaterThanOrEqual(500);
  } finally {
    await sut.system.startCatalog();
  }
  const retried = await ROUTES[0]!.post(f, 'down');
  expect([retried.status, replayed(retried)]).toEqual([201, null]);
});

test("an issued API key's secret is kept for replays sealed, never readable in the database", async () => {
  const f = await fixture();
  const issued = await ROUTES[6]!.post(f, `issue-${f.orgId}`);
  expect(issued.status).toBe(201);
  const { rows: kept } = await sut.db.query(`select answer from gateway.idempotency_keys where scope = 'admin' and key = $1`, [
    `issue-${f.orgId}`,
  ]);
  expect(kept).toHaveLength(1);
  expect((kept[0].answer as Buffer).includes(Buffer.from(issued.body.key as string))).toBe(false);
  expect((await ROUTES[6]!.post(f, `issue-${f.orgId}`)).body.key).toBe(issued.body.key);
});

test('a key is kept 24 hours: older, it names nothing (another request with it runs) and the prune deletes it', async () => {
  const f = await fixture();
  expect((await ROUTES[0]!.post(f, 'day-old')).status).toBe(201);
  expect((await ROUTES[0]!.post(f, 'recent')).status).toBe(201);
  const age = `update gateway.idempotency_keys set created_at = now() - interval '24 hours 1 minute' where scope = $1 and key = $2`;
  await sut.db.query(age, [f.orgId, 'day-old']);
  const kept = (key: string) => rows('select count(*) from gateway.idempotency_keys where scope = $1 and key = $2', [f.orgId, key]);
  await eventually(async () => ((await kept('day-old')) === 0 ? true : undefined));
  expect(await kept('recent')).toBe(1);

  const reused = await ROUTES[0]!.post(f, 'day-old', 1);
  expect([reused.status, replayed(reused)]).toEqual([201, null]);
  expect(await ROUTES[0]!.count(f)).toBe(4);
});

test('a retry waits for the first request with its key, then 409 in progress; a claim whose gateway is gone is taken over', async () => {
  const f = await fixture();
  expect((await ROUTES[0]!.post(f, 'slow')).status).toBe(201);
  // As if the first request still ran (on a gateway that holds it for an hour).
  const running = `update gateway.idempotency_keys set state = 'running', claim = gen_random_uuid(), status = null, answer = null,
                          locked_until = now() + $3::interval where scope = $1 and key = $2`;
  await sut.db.query(running, [f.orgId, 'slow', '1 hour']);
  expectError(await ROUTES[0]!.post(f, 'slow'), 409, 'idempotency_key_in_progress');
  expectError(await ROUTES[0]!.post(f, 'slow', 1), 409, 'idempotency_key_reused');
  await sut.db.query(running, [f.orgId, 'slow', '-1 second']);
  const taken = await ROUTES[0]!.post(f, 'slow');
  expect([taken.status, replayed(taken)]).toEqual([201, null]);
  expect(await ROUTES[0]!.count(f)).toBe(3);
});
