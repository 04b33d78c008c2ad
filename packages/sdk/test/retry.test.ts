import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCatalogClient, RateLimitedError, takesIdempotencyKey, unwrap } from '@catalog/sdk';

/**
 * The retry policy over real HTTP: a small server answers 429/503 first, as the gateway does under
 * load, then success. What the SDK sends is read on the server side.
 */
interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  at: number;
}

let server: Server;
let seen: Seen[];
let answers: Array<{ status: number; headers?: Record<string, string>; body: unknown }>;

function record(request: IncomingMessage): void {
  const key = request.headers['idempotency-key'];
  seen.push({ method: request.method!, url: request.url!, idempotencyKey: typeof key === 'string' ? key : undefined, at: Date.now() });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    record(request);
    request.resume();
    const answer = answers.shift() ?? {
      status: 500,
      body: { error: { code: 'internal_error', message: 'no answer left', requestId: 'r' } },
    };
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(JSON.stringify(answer.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  seen = [];
  answers = [];
});

const client = (maxAttempts = 4) =>
  createCatalogClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'sk_test',
    retry: { maxAttempts, baseDelayMs: 10, maxDelayMs: 50 },
  });
const limited = (retryAfter: string) => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: { error: { code: 'rate_limited', message: 'slow down', requestId: 'r1' } },
});

test('the operations that take an Idempotency-Key come from the OpenAPI document', () => {
  expect(takesIdempotencyKey('POST', '/api/v1/catalog/entities')).toBe(true);
  expect(takesIdempotencyKey('POST', '/api/v1/catalog/entities/0190a1b2-0000-7000-8000-000000000001/versions')).toBe(true);
  expect(takesIdempotencyKey('POST', '/api/v1/catalog/assets/0190a1b2-0000-7000-8000-000000000001/confirm')).toBe(false);
  expect(takesIdempotencyKey('GET', '/api/v1/catalog/entities')).toBe(false);
});

test('a create answered 429 is sent again after Retry-After with the same Idempotency-Key', async () => {
  answers = [limited('1'), { status: 201, body: { id: 'e1' } }];
  const created = await unwrap(client().api.POST('/api/v1/catalog/entities', { body: { type: 'song', title: 'A' } }));
  expect(created).toEqual({ id: 'e1' });
  expect(seen).toHaveLength(2);
  expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
  // Retry-After: 1 was honoured (a lower bound, not a timing measurement).
  expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
});

test('503 is retried with backoff; a key given by the caller is kept', async () => {
  const unavailable = { status: 503, body: { error: { code: 'service_unavailable', message: 'later', requestId: 'r2' } } };
  answers = [unavailable, unavailable, { status: 201, body: { id: 'e2' } }];
  await unwrap(
    client().api.POST('/api/v1/catalog/entities', { body: { type: 'song', title: 'B' }, headers: { 'Idempotency-Key': 'mine-1' } }),
  );
  expect(seen.map((s) => s.idempotencyKey)).toEqual(['mine-1', 'mine-1', 'mine-1']);
});

test('once the attempts are spent the typed error is thrown, with its code, request id and Retry-After', async () => {
  answers = [limited('0'), limited('0')];
  const error = await unwrap(client(2).api.GET('/api/v1/catalog/events')).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RateLimitedError);
  expect(error).toMatchObject({ status: 429, code: 'rate_limited', requestId: 'r1', retryAfterMs: 0 });
  expect(seen.map((s) => s.idempotencyKey)).toEqual([undefined, undefined]);
});

test('other refusals are not retried', async () => {
  answers = [{ status: 409, body: { error: { code: 'idempotency_key_reused', message: 'other request', requestId: 'r3' } } }];
  await expect(unwrap(client().api.POST('/api/v1/catalog/entities', { body: { type: 'song', title: 'C' } }))).rejects.toMatchObject({
    status: 409,
    code: 'idempotency_key_reused',
  });
  expect(seen).toHaveLength(1);
});

test('a create whose first request still runs (409 idempotency_key_in_progress) or timed out (504) is asked again with its key', async () => {
  answers = [
    { status: 504, body: { error: { code: 'upstream_timeout', message: 'late', requestId: 'r4' } } },
    { status: 409, body: { error: { code: 'idempotency_key_in_progress', message: 'running', requestId: 'r5' } } },
    { status: 201, body: { id: 'e4' } },
  ];
  expect(
    await unwrap(
      client().api.POST('/api/v1/catalog/assets', {
        body: { retention: 'standalone', upload: { filename: 'a.wav', contentType: 'audio/wav' } },
      }),
    ),
  ).toEqual({ id: 'e4' });
  expect(new Set(seen.map((s) => s.idempotencyKey)).size).toBe(1);
  expect(seen).toHaveLength(3);

  // Without a key (confirm takes none), a 504 is not sent again: the confirmation may have run.
  answers = [{ status: 504, body: { error: { code: 'upstream_timeout', message: 'late', requestId: 'r6' } } }];
  seen = [];
  await expect(
    unwrap(client().api.POST('/api/v1/catalog/assets/{id}/confirm', { params: { path: { id: '0190a1b2-0000-7000-8000-000000000001' } } })),
  ).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' });
  expect(seen).toHaveLength(1);
});
