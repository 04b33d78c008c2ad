import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys are `sk_` + the key id (its UUID as 32 hex digits) + a 256-bit secret in base64url
 * (43 characters). Only SHA-256 of the secret is stored; the secret has enough entropy that a
 * slow hash adds nothing, and SHA-256 keeps authentication cheap on every request.
 */
const KEY_PATTERN = /^sk_([0-9a-f]{32})([A-Za-z0-9_-]{43})$/;

export interface ParsedKey {
  keyId: string;
  secret: string;
}

export function issueKey(keyId: string): { key: string; secretHash: Buffer } {
  const secret = randomBytes(32).toString('base64url');
  return { key: `sk_${keyId.replace(/-/g, '')}${secret}`, secretHash: hashSecret(secret) };
}

export function parseKey(key: string): ParsedKey | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  const hex = match[1]!;
  const keyId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { keyId, secret: match[2]! };
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

const DUMMY_HASH = hashSecret('never-a-secret');

/** Constant-time check of a presented secret against the stored hash (or a dummy when none). */
export function secretMatches(secret: string, storedHash: Buffer | null): boolean {
  return secretHashMatches(hashSecret(secret), storedHash);
}

/** `secretMatches` for a secret already hashed with `hashSecret`. */
export function secretHashMatches(presented: Buffer, storedHash: Buffer | null): boolean {
  const expected = storedHash && storedHash.length === presented.length ? storedHash : DUMMY_HASH;
  return timingSafeEqual(presented, expected) && storedHash !== null;
}

/**
 * `secretHashMatches` against a key's secret and the one before its latest rotation (null: none or
 * past its grace period); both are compared whatever the first answers.
 */
export function secretHashMatchesEither(presented: Buffer, current: Buffer | null, previous: Buffer | null): boolean {
  const matchesCurrent = secretHashMatches(presented, current);
  const matchesPrevious = secretHashMatches(presented, previous);
  return matchesCurrent || matchesPrevious;
}

/** Constant-time comparison of two strings of any length (for the admin token). */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
