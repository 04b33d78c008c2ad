import { AppError } from '@catalog/platform';
import { clientKey, ipRateLimit } from '../src/http/ip-rate-limit.js';
import { startTestGateway, type TestGateway } from './support.js';

function context(ip: string, path = '/api/v1/catalog/entities') {
  return { ip, path } as never;
}

const next = async () => undefined;

async function refusal(promise: Promise<void>): Promise<AppError | null> {
  return promise.then(
    () => null,
    (error: unknown) => error as AppError,
  );
}

describe('pre-authentication IP limit', () => {
  test('allows the burst, then answers 429 with a Retry-After, per address', async () => {
    const limit = ipRateLimit({ perMinute: 60, burst: 3, maxAddresses: 100 });
    for (let i = 0; i < 3; i += 1) await limit(context('10.0.0.1'), next);
    const refused = await refusal(limit(context('10.0.0.1'), next));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused!.status).toBe(429);
    expect(refused!.code).toBe('rate_limited');
    expect(refused!.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await expect(limit(context('10.0.0.2'), next)).resolves.toBeUndefined();
  });

  test('health checks are never limited, and 0 disables the limit', async () => {
    const limit = ipRateLimit({ perMinute: 60, burst: 1, maxAddresses: 100 });
    for (let i = 0; i < 5; i += 1) await limit(context('10.0.0.3', '/healthz'), next);
    const off = ipRateLimit({ perMinute: 0, burst: 1, maxAddresses: 100 });
    for (let i = 0; i < 5; i += 1) await off(context('10.0.0.4'), next);
  });

  test('memory is bounded: 20,000 distinct addresses leave at most maxAddresses buckets, and an address that keeps sending stays limited', async () => {
    const limit = ipRateLimit({ perMinute: 1, burst: 2, maxAddresses: 1000 });
    await limit(context('192.0.2.1'), next);
    await limit(context('192.0.2.1'), next);
    let mostTracked = 0;
    const hotAddressAnswers = new Set<number | undefined>();
    for (let i = 0; i < 20_000; i += 1) {
      await limit(context(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`), next);
      mostTracked = Math.max(mostTracked, limit.trackedAddresses);
      if (i % 500 === 0) hotAddressAnswers.add((await refusal(limit(context('192.0.2.1'), next)))?.status);
    }
    expect(mostTracked).toBe(1000);
    expect(limit.trackedAddresses).toBe(1000);
    expect([...hotAddressAnswers]).toEqual([429]);
  });

  test('an IPv6 client is counted by its /64 network; IPv4-mapped addresses as IPv4', async () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('0:0:0:0:0:ffff:c000:207')).toBe('192.0.2.7');
    expect(clientKey('64:ff9b::192.0.2.7')).toBe('64:ff9b:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    const limit = ipRateLimit({ perMinute: 1, burst: 2, maxAddresses: 100 });
    await limit(context('2001:db8:1:2::1'), next);
    await limit(context('2001:db8:1:2::2'), next);
    expect((await refusal(limit(context('2001:db8:1:2:ffff::3'), next)))?.status).toBe(429);
    await expect(limit(context('2001:db8:1:3::1'), next)).resolves.toBeUndefined();
  });
});

describe('the client address behind a known number of proxies (TRUST_PROXY_HOPS)', () => {
  let stack: TestGateway;
  beforeAll(async () => {
    stack = await startTestGateway({ TRUST_PROXY_HOPS: '1', IP_RATE_LIMIT_PER_MINUTE: '1', IP_RATE_LIMIT_BURST: '3' });
  });
  afterAll(() => stack?.stop());

  const list = (forwardedFor: string) =>
    fetch(`${stack.gateway.url}/api/v1/catalog/entities`, { headers: { 'x-forwarded-for': forwardedFor } });

  test('addresses a client writes before the one the proxy appended do not change the address counted', async () => {
    for (let i = 0; i < 3; i += 1) expect((await list(`203.0.113.${i}, 198.51.100.7`)).status).toBe(401);
    for (const spoofed of ['203.0.113.99, 198.51.100.7', '10.1.1.1, 10.2.2.2, 198.51.100.7', ' 198.51.100.8 ,198.51.100.7']) {
      const refused = await list(spoofed);
      expect({ spoofed, status: refused.status }).toEqual({ spoofed, status: 429 });
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    }
    // Another client behind the same proxy has a bucket of its own.
    expect((await list('198.51.100.7, 198.51.100.9')).status).toBe(401);
  });
});
