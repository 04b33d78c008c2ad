import type { Next } from 'koa';
import { tooManyRequests, type HttpContext } from '@catalog/platform';

export interface IpRateLimitSettings {
  /** Sustained requests per minute per client address; 0 disables the limit. */
  perMinute: number;
  /** Requests a client may send at once above the sustained rate. */
  burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Pre-authentication limit per client address, applied to every request before the key is looked
 * at (a token bucket per address in this process). It protects the key lookup and the services
 * from floods; per-key limits of individual endpoints come after authentication.
 */
export function ipRateLimit(settings: IpRateLimitSettings) {
  const buckets = new Map<string, Bucket>();
  const ratePerMs = settings.perMinute / 60_000;
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [ip, bucket] of buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * ratePerMs >= settings.burst) buckets.delete(ip);
    }
  }, 60_000);
  sweep.unref();
  return async function limitByIp(ctx: HttpContext, next: Next): Promise<void> {
    if (settings.perMinute <= 0 || ctx.path === '/healthz' || ctx.path === '/readyz') return next();
    const now = Date.now();
    const bucket = buckets.get(ctx.ip) ?? { tokens: settings.burst, updatedAt: now };
    bucket.tokens = Math.min(settings.burst, bucket.tokens + (now - bucket.updatedAt) * ratePerMs);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) {
      buckets.set(ctx.ip, bucket);
      throw tooManyRequests('too many requests from this address', Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)));
    }
    bucket.tokens -= 1;
    buckets.set(ctx.ip, bucket);
    return next();
  };
}
