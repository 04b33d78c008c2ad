import { issueKey, parseKey } from '../src/domain/api-keys.js';
import { secretMatches } from '../src/domain/api-keys.js';
import { admit, type Caller } from '../src/domain/authenticate.js';
import { AppError } from '@catalog/platform';

describe('API keys', () => {
  const keyId = '01936f3e-1c2d-7abc-8def-0123456789ab';

  test('a key is sk_ + key id + secret, and parses back to its id', () => {
    const { key, secretHash } = issueKey(keyId);
    expect(key).toMatch(/^sk_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    const parsed = parseKey(key);
    expect(parsed?.keyId).toBe(keyId);
    expect(secretMatches(parsed!.secret, secretHash)).toBe(true);
  });

  test('each issue makes a new secret; only the latest hash matches', () => {
    const first = issueKey(keyId);
    const second = issueKey(keyId);
    expect(first.key).not.toBe(second.key);
    expect(secretMatches(parseKey(first.key)!.secret, second.secretHash)).toBe(false);
  });

  test('malformed keys do not parse', () => {
    const { key } = issueKey(keyId);
    for (const bad of ['', 'sk_', key.slice(1), `${key}A`, key.toUpperCase(), key.replace(/[0-9a-f]/, 'g'), `pk_${key.slice(3)}`]) {
      expect(parseKey(bad)).toBeNull();
    }
  });

  test('no stored hash never matches', () => {
    expect(secretMatches('anything', null)).toBe(false);
  });
});

describe('admission to a per-key rate limit', () => {
  const caller = (admission: Caller['admission']): Caller => ({
    tenantId: 't',
    keyId: 'k',
    permissions: ['catalog:api'],
    products: ['catalog'],
    sourceSystem: 'public-api:k',
    admission,
  });

  test('an admitted request passes; a refused one is 429 with the seconds to wait', () => {
    expect(() => admit(caller({ allowed: true, retryAfterSeconds: 1 }), 60)).not.toThrow();
    let refused: unknown;
    try {
      admit(caller({ allowed: false, retryAfterSeconds: 17 }), 60);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(429);
    expect((refused as AppError).code).toBe('rate_limited');
    expect((refused as AppError).details).toEqual({ retryAfterSeconds: 17 });
  });

  test('an authorised request that was not counted is an error, never let through unlimited', () => {
    expect(() => admit(caller(null), 60)).toThrow(/rate limit not applied/);
  });
});
