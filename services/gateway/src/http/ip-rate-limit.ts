import { isIPv6 } from 'node:net';
import type { Next } from 'koa';
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

/** Expands an IPv6 address to its eight groups (`::` filled in; an embedded IPv4 tail as two groups). */
function ipv6Groups(address: string): string[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((group) => group.replace(/^0+(?=.)/, ''));
}

/**
 * The key a client is counted under: its IPv4 address (also when written as IPv4-mapped IPv6), or
 * the /64 network of an IPv6 address, since one subscriber usually holds a whole /64 and could
 * otherwise take a fresh bucket, and push others' buckets out, with every request.
 */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [hi, lo] = [parseInt(groups[6]!, 16), parseInt(groups[7]!, 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/**
 * Pre-authentication limit per client address, applied to every request before the key is looked
 * at (a token bucket per address in this process, decision 0008). It protects the key lookup and
 * the services from floods; per-key limits of individual endpoints come after authentication.
 * Memory is bounded: the buckets form an LRU of at most `maxAddresses` (a Map keeps insertion
 * order; a bucket used is moved to the end, the first is the least recently used). The client
 * address is Koa's `ctx.ip`: the socket address, or the address the trusted proxies saw.
 */
export function ipRateLimit(settings: IpRateLimitSettings): IpRateLimiter {
  const buckets = new Map<string, Bucket>();
  const ratePerMs = settings.perMinute / 60_000;

  function take(key: string, now: number): Bucket {
    const bucket = buckets.get(key);
    if (bucket) {
      buckets.delete(key);
      bucket.tokens = Math.min(settings.burst, bucket.tokens + (now - bucket.updatedAt) * ratePerMs);
      bucket.updatedAt = now;
      buckets.set(key, bucket);
      return bucket;
    }
    const fresh = { tokens: settings.burst, updatedAt: now };
    buckets.set(key, fresh);
    if (buckets.size > settings.maxAddresses) buckets.delete(buckets.keys().next().value!);
    return fresh;
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
