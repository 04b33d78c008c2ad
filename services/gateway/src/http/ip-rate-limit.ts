import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Next } from 'koa';
import { LRUCache } from 'lru-cache';
import { tooManyRequests, type HttpContext } from '@catalog/platform';

export interface IpRateLimitSettings {
  /** Sustained requests per minute per client address; 0 disables the limit. */
  perMinute: number;
  /** Requests a client may send at once above the sustained rate. */
  burst: number;
  /** Most client addresses tracked at once; beyond it the least recently seen is forgotten. */
  maxAddresses: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface IpRateLimiter {
  (ctx: HttpContext, next: Next): Promise<void>;
  /** Client addresses tracked now (at most `maxAddresses`). */
  readonly trackedAddresses: number;
}

/**
 * The key a client is counted under: its IPv4 address (also when written as IPv4-mapped IPv6), or
 * the /64 network of an IPv6 address, since one subscriber usually holds a whole /64 and could
 * otherwise take a fresh bucket, and push others' buckets out, with every request. ipaddr.js
 * parses the address (`::` and an embedded IPv4 tail filled in, a zone left out).
 */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const ip = ipaddr.IPv6.parse(address);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
  const network = ip.parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}

/**
 * Pre-authentication limit per client address, applied to every request before the key is looked
 * at (a token bucket per address in this process, decision 0008). It protects the key lookup and
 * the services from floods; per-key limits of individual endpoints come after authentication.
 * Memory is bounded: the buckets live in an LRU cache (lru-cache) of at most `maxAddresses`, the
 * least recently used forgotten first; rate-limiter-flexible's RateLimiterMemory keeps every key
 * until its window ends, however many there are (decision 0127). The client address is Koa's
 * `ctx.ip`: the socket address, or the address the trusted proxies saw.
 */
export function ipRateLimit(settings: IpRateLimitSettings): IpRateLimiter {
  const buckets = new LRUCache<string, Bucket>({ max: settings.maxAddresses });
  const ratePerMs = settings.perMinute / 60_000;

  function take(key: string, now: number): Bucket {
    const bucket = buckets.get(key); // marks it the most recently used
    if (!bucket) {
      const fresh = { tokens: settings.burst, updatedAt: now };
      buckets.set(key, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(settings.burst, bucket.tokens + (now - bucket.updatedAt) * ratePerMs);
    bucket.updatedAt = now;
    return bucket;
  }

  const limitByIp = async function limitByIp(ctx: HttpContext, next: Next): Promise<void> {
    if (settings.perMinute <= 0 || ctx.path === '/healthz' || ctx.path === '/readyz') return next();
    const bucket = take(clientKey(ctx.ip), Date.now());
    if (bucket.tokens < 1) {
      throw tooManyRequests('too many requests from this address', Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)));
    }
    bucket.tokens -= 1;
    return next();
  };
  return Object.defineProperty(limitByIp, 'trackedAddresses', { get: () => buckets.size }) as IpRateLimiter;
}
