import { createHash } from 'node:crypto';
import { readConfig } from '@catalog/platform';
import { apiClient, eventually, testLogger, type ApiClient } from '@catalog/testing';
import { gatewayConfig, startGateway } from '../src/index.js';
import { ENTITY, statusOn } from './replicas.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from './support.js';

/**
 * The library page's session (decision 0153), through HTTP: the key is exchanged once for an
 * HttpOnly, SameSite=Strict cookie (Secure over TLS) whose token is stored only as a hash; the
 * page's calls go through `/app/api/…` with it; it ends by sign-out, idleness, its absolute end,
 * and the key's revocation or rotation; the API itself never takes it. No catalog service runs
 * here, so a call that passed authentication and authorisation ends as 503.
 */
let gw: TestGateway;
let admin: ApiClient;

beforeAll(async () => {
  // One trusted proxy: its X-Forwarded-Proto says whether the client came over TLS.
  gw = await startTestGateway({ TRUST_PROXY_HOPS: '1' });
  admin = apiClient(gw.gateway.url, ADMIN_TOKEN);
});
afterAll(() => gw?.stop());

const PAGE = { 'x-catalog-app': '1' };

interface SignedIn {
  response: Response;
  setCookie: string;
  /** The `name=token` pair the browser sends back. */
  cookie: string;
  token: string;
}

async function signIn(base: string, key: string, headers: Record<string, string> = {}): Promise<SignedIn> {
  const response = await fetch(`${base}/app/session`, { method: 'POST', headers: { ...PAGE, authorization: `Bearer ${key}`, ...headers } });
  const setCookie = response.headers.getSetCookie()[0] ?? '';
  const cookie = setCookie.split(';')[0]!;
  return { response, setCookie, cookie, token: cookie.slice(cookie.indexOf('=') + 1) };
}

/** A call of the page through its session: the status. */
async function viaSession(base: string, cookie: string, path = ENTITY, init: RequestInit = {}): Promise<number> {
  const response = await fetch(`${base}/app${path}`, {
    ...init,
    headers: { ...PAGE, cookie, ...(init.headers as Record<string, string>) },
  });
  await response.arrayBuffer();
  return response.status;
}

async function sessionStatus(base: string, cookie: string): Promise<number> {
  const response = await fetch(`${base}/app/session`, { headers: { ...PAGE, cookie } });
  await response.arrayBuffer();
  return response.status;
}

const attributes = (setCookie: string): string[] =>
  setCookie
    .split(';')
    .slice(1)
    .map((part) => part.trim())
    .sort();

test('sign-in sets an HttpOnly, SameSite=Strict cookie for /app only, whose token the database holds only as a hash', async () => {
  const { keyId, key } = await admin.tenant({ name: 'Cookie FM' });
  const { response, setCookie, cookie, token } = await signIn(gw.gateway.url, key);
  expect(response.status).toBe(201);
  expect(await response.json()).toEqual({ keyId, expiresAt: expect.any(String), idleTimeoutSeconds: 1800 });
  expect(cookie).toMatch(/^catalog_app=[A-Za-z0-9_-]{43}$/);
  // Plain HTTP: not Secure (a browser would drop a Secure cookie set over plain HTTP).
  expect(attributes(setCookie)).toEqual(['HttpOnly', 'Path=/app', 'SameSite=Strict']);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(setCookie).not.toContain(key);

  const rows = await gw.gateway.database.pool.query<Record<string, unknown>>('select * from gateway.app_sessions where key_id = $1', [
    keyId,
  ]);
  expect(rows.rows).toHaveLength(1);
  expect(rows.rows[0]!.token_hash).toEqual(createHash('sha256').update(token).digest());
  expect(JSON.stringify(rows.rows)).not.toContain(token);
});

test('over TLS (as the trusted proxy says) the cookie is Secure and __Secure- named; a refused key sets none', async () => {
  const { key } = await admin.tenant({ name: 'TLS FM' });
  const secure = await signIn(gw.gateway.url, key, { 'x-forwarded-proto': 'https' });
  expect(secure.response.status).toBe(201);
  expect(secure.cookie).toMatch(/^__Secure-catalog_app=[A-Za-z0-9_-]{43}$/);
  expect(attributes(secure.setCookie)).toEqual(['HttpOnly', 'Path=/app', 'SameSite=Strict', 'Secure']);
  expect(await viaSession(gw.gateway.url, secure.cookie, ENTITY, { headers: { 'x-forwarded-proto': 'https' } })).toBe(503);

  const refused = await signIn(gw.gateway.url, `${key.slice(0, -4)}AAAA`);
  expect(refused.response.status).toBe(401);
  expect(refused.setCookie).toBe('');
});

test("the session works for the page's calls, under the key's permissions", async () => {
  const { keyId, key } = await admin.tenant({ name: 'Session FM' });
  const { cookie } = await signIn(gw.gateway.url, key);
  const session = await fetch(`${gw.gateway.url}/app/session`, { headers: { ...PAGE, cookie } });
  expect(session.status).toBe(200);
  expect(await session.json()).toMatchObject({ keyId });
  expect(await viaSession(gw.gateway.url, cookie)).toBe(503);

  const { key: libraryOnly } = await admin.tenant({ name: 'Library Only FM', permissions: ['library:api'] });
  const limited = await signIn(gw.gateway.url, libraryOnly);
  expect(limited.response.status).toBe(201);
  expect(await viaSession(gw.gateway.url, limited.cookie)).toBe(403);
});

test('the API takes only the key: a request with the session cookie alone is 401', async () => {
  const { key } = await admin.tenant({ name: 'Cookie Alone FM' });
  const { cookie } = await signIn(gw.gateway.url, key);
  for (const headers of [{ cookie }, { cookie, ...PAGE }]) {
    const response = await fetch(`${gw.gateway.url}${ENTITY}`, { headers });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  }
  // Nor does the page's path take the key instead of a session.
  const keyOnly = await fetch(`${gw.gateway.url}/app${ENTITY}`, { headers: { ...PAGE, authorization: `Bearer ${key}` } });
  expect(keyOnly.status).toBe(401);
});

test('a call through the session must come from the page: its header, no other origin or site', async () => {
  const { key } = await admin.tenant({ name: 'Cross Site FM' });
  const { cookie } = await signIn(gw.gateway.url, key);
  const host = new URL(gw.gateway.url).host;
  const refusedWith = async (headers: Record<string, string>, method = 'POST'): Promise<string> => {
    const response = await fetch(`${gw.gateway.url}/app/api/v1/catalog/entities`, {
      method,
      headers: { cookie, 'content-type': 'application/json', ...headers },
      body: method === 'POST' ? '{}' : undefined,
    });
    return `${response.status} ${((await response.json()) as { error: { code: string } }).error.code}`;
  };
  expect(await refusedWith({})).toBe('403 cross_site_request');
  expect(await refusedWith({}, 'GET')).toBe('403 cross_site_request');
  expect(await refusedWith({ ...PAGE, origin: 'https://evil.example' })).toBe('403 cross_site_request');
  expect(await refusedWith({ ...PAGE, 'sec-fetch-site': 'same-site' })).toBe('403 cross_site_request');
  // The same call from the page passes the session (503: no catalog service runs here).
  expect(await viaSession(gw.gateway.url, cookie, '/api/v1/catalog/entities', { headers: { origin: `http://${host}` } })).toBe(503);
  // Signing in from another origin opens nothing.
  const fromElsewhere = await signIn(gw.gateway.url, key, { origin: 'https://evil.example' });
  expect(fromElsewhere.response.status).toBe(403);
  expect(fromElsewhere.setCookie).toBe('');
});

test('sign-out ends the session and clears the cookie', async () => {
  const { key } = await admin.tenant({ name: 'Sign Out FM' });
  const { cookie } = await signIn(gw.gateway.url, key);
  expect(await viaSession(gw.gateway.url, cookie)).toBe(503);
  const out = await fetch(`${gw.gateway.url}/app/session`, { method: 'DELETE', headers: { ...PAGE, cookie } });
  expect(out.status).toBe(204);
  expect(attributes(out.headers.getSetCookie()[0]!)).toEqual(['HttpOnly', 'Max-Age=0', 'Path=/app', 'SameSite=Strict']);
  expect(await sessionStatus(gw.gateway.url, cookie)).toBe(401);
  expect(await viaSession(gw.gateway.url, cookie)).toBe(401);
  // The key itself still works on the API.
  expect(await statusOn(gw.gateway, key)).toBe(503);
});

test("the key's revocation ends its sessions", async () => {
  const { keyId, key } = await admin.tenant({ name: 'Revoked FM' });
  const { cookie } = await signIn(gw.gateway.url, key);
  expect(await viaSession(gw.gateway.url, cookie)).toBe(503);
  expect((await admin.admin('DELETE', `/admin/v1/api-keys/${keyId}`)).status).toBe(204);
  expect(await viaSession(gw.gateway.url, cookie)).toBe(401);
  expect(await sessionStatus(gw.gateway.url, cookie)).toBe(401);
  const rows = await gw.gateway.database.pool.query('select 1 from gateway.app_sessions where key_id = $1', [keyId]);
  expect(rows.rowCount).toBe(0);
});

test("a revocation made on another replica ends the session within the keys' staleness bound", async () => {
  const other = await startGateway(readConfig(gatewayConfig, gw.env), { logger: testLogger('gateway-b') });
  try {
    const { keyId, key } = await admin.tenant({ name: 'Other Replica FM' });
    const { cookie } = await signIn(other.url, key);
    expect(await viaSession(other.url, cookie)).toBe(503);
    expect((await admin.admin('DELETE', `/admin/v1/api-keys/${keyId}`)).status).toBe(204);
    await eventually(async () => ((await viaSession(other.url, cookie)) === 401 ? true : undefined), 5_000);
  } finally {
    await other.stop();
  }
});

test("the key's rotation ends its sessions at once, even while the former secret's grace period runs", async () => {
  const { keyId, key } = await admin.tenant({ name: 'Rotated FM' });
  const { cookie } = await signIn(gw.gateway.url, key);
  expect(await viaSession(gw.gateway.url, cookie)).toBe(503);
  const rotated = await admin.admin<{ key: string }>('POST', `/admin/v1/api-keys/${keyId}/rotate`, { gracePeriodSeconds: 3600 });
  expect(rotated.status).toBe(200);
  expect(await viaSession(gw.gateway.url, cookie)).toBe(401);
  // The former secret still works on the API for its grace period, but opens no session.
  expect(await statusOn(gw.gateway, key)).toBe(503);
  expect((await signIn(gw.gateway.url, key)).response.status).toBe(401);
  const renewed = await signIn(gw.gateway.url, rotated.body.key);
  expect(await viaSession(gw.gateway.url, renewed.cookie)).toBe(503);
});

test('signing in again ends the session the browser held before; a key holds at most APP_SESSIONS_PER_KEY sessions', async () => {
  const { keyId, key } = await admin.tenant({ name: 'Many Sessions FM' });
  const first = await signIn(gw.gateway.url, key);
  const second = await signIn(gw.gateway.url, key, { cookie: first.cookie });
  expect(await sessionStatus(gw.gateway.url, first.cookie)).toBe(401);
  expect(await sessionStatus(gw.gateway.url, second.cookie)).toBe(200);
  const cookies: string[] = [];
  for (let i = 0; i < 21; i++) cookies.push((await signIn(gw.gateway.url, key)).cookie);
  const rows = await gw.gateway.database.pool.query('select 1 from gateway.app_sessions where key_id = $1', [keyId]);
  expect(rows.rowCount).toBe(20);
  expect(await sessionStatus(gw.gateway.url, second.cookie)).toBe(401);
  expect(await sessionStatus(gw.gateway.url, cookies.at(-1)!)).toBe(200);
});

describe('with short session times', () => {
  let short: TestGateway;
  let shortAdmin: ApiClient;
  const IDLE_MS = 1500;
  const MAX_AGE_MS = 4500;
  beforeAll(async () => {
    short = await startTestGateway({
      APP_SESSION_IDLE_TIMEOUT_MS: String(IDLE_MS),
      APP_SESSION_MAX_AGE_MS: String(MAX_AGE_MS),
      APP_SESSION_SECURE_COOKIE: 'always',
    });
    shortAdmin = apiClient(short.gateway.url, ADMIN_TOKEN);
  });
  afterAll(() => short?.stop());
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('APP_SESSION_SECURE_COOKIE=always: Secure even over plain HTTP', async () => {
    const { key } = await shortAdmin.tenant({ name: 'Always Secure FM' });
    const { setCookie, cookie } = await signIn(short.gateway.url, key);
    expect(cookie).toMatch(/^__Secure-catalog_app=/);
    expect(attributes(setCookie)).toContain('Secure');
  });

  test('a session unused for the idle time has ended, and its row is pruned', async () => {
    const { keyId, key } = await shortAdmin.tenant({ name: 'Idle FM' });
    const { cookie } = await signIn(short.gateway.url, key);
    expect(await viaSession(short.gateway.url, cookie)).toBe(503);
    await sleep(IDLE_MS + 500);
    // eslint-disable-next-line no-restricted-syntax -- waits out the idle time itself (a lower bound load only lengthens)
    expect(await viaSession(short.gateway.url, cookie)).toBe(401);
    // Its row is pruned (every idle time here).
    const rows = () => short.gateway.database.pool.query('select 1 from gateway.app_sessions where key_id = $1', [keyId]);
    await eventually(async () => ((await rows()).rowCount === 0 ? true : undefined), 10_000);
  });

  test('a session in use outlives the idle time, and ends at its absolute end however it is used', async () => {
    const { key } = await shortAdmin.tenant({ name: 'Absolute FM' });
    const { response, cookie } = await signIn(short.gateway.url, key);
    const expiresAt = Date.parse(((await response.json()) as { expiresAt: string }).expiresAt);
    const seen: number[] = [];
    // Used every 250 ms (well within the idle time) until past its end.
    while (Date.now() < expiresAt + 500) {
      const before = Date.now();
      const status = await viaSession(short.gateway.url, cookie);
      if (before < expiresAt - 500) seen.push(status);
      else if (before > expiresAt) expect(status).toBe(401);
      await sleep(250);
    }
    expect(seen.length).toBeGreaterThan((MAX_AGE_MS - IDLE_MS) / 250 / 2);
    expect(new Set(seen)).toEqual(new Set([503]));
    expect(await sessionStatus(short.gateway.url, cookie)).toBe(401);
  });
});
