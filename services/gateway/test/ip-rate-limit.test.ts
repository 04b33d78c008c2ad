import { AppError } from '@catalog/platform';
import { ipRateLimit } from '../src/http/ip-rate-limit.js';

function context(ip: string, path = '/api/v1/catalog/entities') {
  return { ip, path } as never;
}

describe('pre-authentication IP limit', () => {
  test('allows the burst, then answers 429 with a Retry-After, per address', async () => {
    const limit = ipRateLimit({ perMinute: 60, burst: 3 });
    const next = async () => undefined;
    for (let i = 0; i < 3; i += 1) await limit(context('10.0.0.1'), next);
    const refused = await limit(context('10.0.0.1'), next).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(429);
    expect((refused as AppError).details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await expect(limit(context('10.0.0.2'), next)).resolves.toBeUndefined();
  });

  test('health checks are never limited, and 0 disables the limit', async () => {
    const limit = ipRateLimit({ perMinute: 60, burst: 1 });
    for (let i = 0; i < 5; i += 1) await limit(context('10.0.0.3', '/healthz'), async () => undefined);
    const off = ipRateLimit({ perMinute: 0, burst: 1 });
    for (let i = 0; i < 5; i += 1) await off(context('10.0.0.4'), async () => undefined);
  });
});
