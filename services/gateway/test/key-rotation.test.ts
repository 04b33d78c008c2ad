import { readConfig } from '@catalog/platform';
import { apiClient, eventually, testLogger, type ApiClient } from '@catalog/testing';
import { gatewayConfig, startGateway, type GatewayHandle } from '../src/index.js';
import { heldBy, statusOn } from './replicas.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from './support.js';

/**
 * Rotation with a grace period (decision 0120), on two gateway replicas of one
 * database: `POST /admin/v1/api-keys/{keyId}/rotate {"gracePeriodSeconds": N}` keeps the former
 * secret working for N seconds besides the new one, then it is refused on every replica. The end of
 * a grace period is brought forward in the database instead of waited for.
 */
let a: TestGateway;
let b: GatewayHandle;
let admin: ApiClient;

beforeAll(async () => {
  a = await startTestGateway({ API_KEY_MAX_STALENESS_MS: '1000' });
  b = await startGateway(readConfig(gatewayConfig, a.env), { logger: testLogger('gateway-b') });
  admin = apiClient(a.gateway.url, ADMIN_TOKEN);
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

/** The events feed: its key is read from the database with the rate-limit admission (no events service runs: 503 once admitted). */
const FEED = '/api/v1/catalog/events';

interface Rotated {
  id: string;
  key: string;
  previousKeyExpiresAt: string | null;
}

async function rotate(keyId: string, body?: unknown): Promise<Rotated> {
  const answer = await admin.admin<Rotated>('POST', `/admin/v1/api-keys/${keyId}/rotate`, body);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The statuses `key` gets on replicas A and B (503: it passed authentication). */
async function statuses(key: string, path?: string): Promise<[number, number]> {
  return [await statusOn(a.gateway, key, path), await statusOn(b, key, path)];
}

/** The grace period of the key's previous secret ends now, as time would end it: no admin change, no notice. */
async function endGracePeriod(keyId: string): Promise<void> {
  const result = await a.gateway.database.pool.query(
    `update gateway.api_keys set previous_secret_expires_at = now() - interval '1 millisecond'
      where id = $1 and previous_secret_expires_at is not null`,
    [keyId],
  );
  expect(result.rowCount).toBe(1);
}

async function listed(orgId: string, keyId: string): Promise<{ previousKeyExpiresAt: string | null; rotatedAt: string | null }> {
  const answer = await admin.admin<{ apiKeys: Array<{ id: string; previousKeyExpiresAt: string | null; rotatedAt: string | null }> }>(
    'GET',
    `/admin/v1/organizations/${orgId}/api-keys`,
  );
  expect(answer.status).toBe(200);
  return answer.body.apiKeys.find((key) => key.id === keyId)!;
}

test.each([
  ['no body', undefined],
  ['an empty object', {}],
  ['a grace period of 0', { gracePeriodSeconds: 0 }],
])('a rotation with %s: the old secret is refused at once, the new one works', async (_label, body) => {
  const { keyId, key } = await admin.tenant({ name: 'Immediate FM' });
  const rotated = await rotate(keyId, body);
  expect(rotated).toMatchObject({ id: keyId, previousKeyExpiresAt: null });
  expect(await statusOn(a.gateway, key)).toBe(401);
  expect(await statusOn(a.gateway, rotated.key)).toBe(503);
});

test('a JSON content type with no bytes is no body: the rotation is immediate', async () => {
  const { keyId, key } = await admin.tenant({ name: 'Empty Body FM' });
  const answer = await admin.request('POST', `/admin/v1/api-keys/${keyId}/rotate`, {
    key: ADMIN_TOKEN,
    rawBody: '',
    headers: { 'content-type': 'application/json' },
  });
  expect(answer.status).toBe(200);
  expect(answer.body.previousKeyExpiresAt).toBeNull();
  expect(await statusOn(a.gateway, key)).toBe(401);
});

test('with a grace period both secrets work on both replicas; once it ends the old one is refused on both and the new one works', async () => {
  const { orgId, keyId, key: old } = await admin.tenant({ name: 'Grace FM' });
  await heldBy(b, keyId, old);
  const before = Date.now();
  const rotated = await rotate(keyId, { gracePeriodSeconds: 3600 });
  const expiresAt = Date.parse(rotated.previousKeyExpiresAt!);
  expect(expiresAt).toBeGreaterThan(before + 3_540_000);
  expect(expiresAt).toBeLessThan(Date.now() + 3_660_000);
  expect(await listed(orgId, keyId)).toMatchObject({ previousKeyExpiresAt: rotated.previousKeyExpiresAt, rotatedAt: expect.any(String) });

  // B learns the rotation (its memory holds the new secret only); the old one is then read from the database.
  await heldBy(b, keyId, rotated.key);
  for (const path of [undefined, FEED]) {
    expect({ path, old: await statuses(old, path), new: await statuses(rotated.key, path) }).toEqual({
      path,
      old: [503, 503],
      new: [503, 503],
    });
  }

  await endGracePeriod(keyId);
  for (const path of [undefined, FEED]) {
    expect({ path, old: await statuses(old, path), new: await statuses(rotated.key, path) }).toEqual({
      path,
      old: [401, 401],
      new: [503, 503],
    });
  }
  expect(await listed(orgId, keyId)).toMatchObject({ previousKeyExpiresAt: null });
});

test('a second rotation during a grace period: the oldest secret stops at once, the one it replaces gets the new grace period', async () => {
  const { keyId, key: first } = await admin.tenant({ name: 'Twice FM' });
  const second = await rotate(keyId, { gracePeriodSeconds: 3600 });
  const third = await rotate(keyId, { gracePeriodSeconds: 600 });
  expect(Date.parse(third.previousKeyExpiresAt!)).toBeLessThan(Date.parse(second.previousKeyExpiresAt!));
  await heldBy(b, keyId, third.key);
  expect({ first: await statuses(first), second: await statuses(second.key), third: await statuses(third.key) }).toEqual({
    first: [401, 401],
    second: [503, 503],
    third: [503, 503],
  });

  // A rotation without a grace period ends the one under way as well.
  const fourth = await rotate(keyId);
  expect(fourth.previousKeyExpiresAt).toBeNull();
  await heldBy(b, keyId, fourth.key);
  expect({ second: await statuses(second.key), third: await statuses(third.key), fourth: await statuses(fourth.key) }).toEqual({
    second: [401, 401],
    third: [401, 401],
    fourth: [503, 503],
  });
});

test('revoking a key in its grace period ends both secrets', async () => {
  const { keyId, key: old } = await admin.tenant({ name: 'Revoked Grace FM' });
  const rotated = await rotate(keyId, { gracePeriodSeconds: 3600 });
  await heldBy(b, keyId, rotated.key);
  expect((await admin.admin('DELETE', `/admin/v1/api-keys/${keyId}`)).status).toBe(204);
  await eventually(async () => (b.keys!.held(keyId) === undefined ? true : undefined));
  expect({ old: await statuses(old), new: await statuses(rotated.key) }).toEqual({ old: [401, 401], new: [401, 401] });
});

test('a grace period must be a whole number of seconds from 0 to 604800: anything else is 400 and the key keeps its secret', async () => {
  const { keyId, key } = await admin.tenant({ name: 'Invalid FM' });
  for (const [body, path] of [
    [{ gracePeriodSeconds: -1 }, '/gracePeriodSeconds'],
    [{ gracePeriodSeconds: 604_801 }, '/gracePeriodSeconds'],
    [{ gracePeriodSeconds: 1.5 }, '/gracePeriodSeconds'],
    [{ gracePeriodSeconds: '60' }, '/gracePeriodSeconds'],
    [{ gracePeriodSeconds: null }, '/gracePeriodSeconds'],
    [{ gracePeriod: 60 }, '/gracePeriod'],
    [[], '/'],
    [60, '/'],
  ] as const) {
    const answer = await admin.admin('POST', `/admin/v1/api-keys/${keyId}/rotate`, body);
    expect({ body, status: answer.status, code: answer.body.error?.code, path: answer.body.error?.details?.fields?.[0]?.path }).toEqual({
      body,
      status: 400,
      code: 'invalid_body',
      path,
    });
  }
  expect(await statusOn(a.gateway, key)).toBe(503);
  const longest = await rotate(keyId, { gracePeriodSeconds: 604_800 });
  expect(await statuses(key)).toEqual([503, 503]);
  expect(await statusOn(a.gateway, longest.key)).toBe(503);
});

test('rotating an unknown key is 404', async () => {
  const answer = await admin.admin('POST', '/admin/v1/api-keys/0193a6c4-0000-7000-8000-0000000000ff/rotate', { gracePeriodSeconds: 60 });
  expect(answer.status).toBe(404);
  expect(answer.body.error.code).toBe('not_found');
});
