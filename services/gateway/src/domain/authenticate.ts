import type { Pool } from 'pg';
import { AppError, forbidden, tooManyRequests, unauthorized } from '@catalog/platform';
import type { Permission, Product } from '@catalog/contracts';
import { hashSecret, parseKey, secretHashMatches, secretHashMatchesEither } from './api-keys.js';
import type { KeyReplica } from './key-replica.js';
import {
  findActiveKeyCredentials,
  findKeyCredentialsAndAdmit,
  type AdmissionRequest,
  type KeyCredentials,
  type KeyCredentialsNow,
  type KeyCredentialsWithAdmission,
} from '../persistence/api-keys.js';

export interface Caller {
  tenantId: string;
  keyId: string;
  permissions: string[];
  products: string[];
  /** `public-api:<keyId>`, or the name the key is bound to. */
  sourceSystem: string;
  /**
   * With a rate limit to apply: the request's admission (null when it did not count because the
   * key may not make it; authorisation then refuses it).
   */
  admission: { allowed: boolean; retryAfterSeconds: number } | null;
}

/** Where keys are checked: the replica in memory while it is current, the database otherwise. */
export interface KeyStore {
  pool: Pool;
  /** Null: every request reads its key from the database. */
  replica: KeyReplica | null;
}

/**
 * The key's credentials when the replica is current and holds the key with the presented secret;
 * otherwise the database's (a key or a secret the replica does not know yet, e.g. one issued or
 * rotated on another replica a moment ago, is read there). Only changes that take rights away
 * (revocation, rotation's old secret, plan and binding changes) can lag, by at most the bound.
 * The replica holds only each key's current secret: a previous one in a rotation's grace period is
 * read from the database on every request, where its expiry is checked then (decision 0120).
 */
async function credentialsOf(keys: KeyStore, keyId: string, presented: Buffer): Promise<KeyCredentials | KeyCredentialsNow | undefined> {
  const held = keys.replica?.credentials(keyId);
  if (held && secretHashMatches(presented, held.secret_hash)) return held;
  return findActiveKeyCredentials(keys.pool, keyId);
}

/** A key as a request presents it: its id and the SHA-256 of the secret it came with. */
export interface PresentedKey {
  keyId: string;
  secretHash: Buffer;
  /**
   * Only the key's current secret counts, not the one before a rotation in its grace period: a
   * page session (decision 0153) was made with one secret and ends when the key is rotated.
   */
  currentSecretOnly?: boolean;
}

/** The key of `Authorization: Bearer sk_…`; 401 when it is missing or not a key. */
export function presentedKey(authorization: string | undefined): PresentedKey {
  if (!authorization) throw unauthorized('missing API key: send Authorization: Bearer <API_KEY>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('malformed Authorization header: expected Bearer <API_KEY>');
  const parsed = parseKey(match[1]!);
  if (!parsed) throw unauthorized('invalid API key');
  return { keyId: parsed.keyId, secretHash: hashSecret(parsed.secret) };
}

/**
 * Checks the presented key on every request: from the replica in memory or the database
 * (`credentialsOf`). With `limit`, the key is read from the database in the round trip that also
 * admits the request to the key's rate limit, which all replicas share (see
 * `findKeyCredentialsAndAdmit`); `admit` then answers for it after authorisation.
 */
export async function authenticateKey(keys: KeyStore, presented: PresentedKey, limit: AdmissionRequest | null = null): Promise<Caller> {
  const { keyId, secretHash } = presented;
  const credentials: (KeyCredentials & Partial<Pick<KeyCredentialsWithAdmission, 'previous_secret_hash' | 'admission'>>) | undefined = limit
    ? await findKeyCredentialsAndAdmit(keys.pool, keyId, secretHash, limit)
    : await credentialsOf(keys, keyId, secretHash);
  const previous = presented.currentSecretOnly ? null : (credentials?.previous_secret_hash ?? null);
  const matches = secretHashMatchesEither(secretHash, credentials?.secret_hash ?? null, previous);
  if (!matches || !credentials) throw unauthorized('invalid API key');
  return {
    tenantId: credentials.organization_id,
    keyId: credentials.id,
    permissions: credentials.permissions,
    products: credentials.products,
    sourceSystem: credentials.source_system ?? `public-api:${credentials.id}`,
    admission: credentials.admission ?? null,
  };
}

/**
 * After `authorize`: 429 `rate_limited` with the seconds to wait when the key used up its limit.
 * An authorised request that was not counted would escape the limit, so that is an error.
 */
export function admit(caller: Caller, perMinute: number): void {
  if (!caller.admission) throw new Error(`rate limit not applied to an authorised request of key ${caller.keyId}`);
  if (!caller.admission.allowed) {
    throw tooManyRequests(`this API key may make ${perMinute} requests per minute here; retry later`, caller.admission.retryAfterSeconds);
  }
}

/** 403 when the key lacks the permission; then 402 when the plan lacks the product. */
export function authorize(caller: Caller, permission: Permission, product: Product, entitlement: boolean): void {
  if (!caller.permissions.includes(permission)) {
    throw forbidden(`this API key lacks the ${permission} permission`, { requiredPermission: permission });
  }
  if (entitlement && !caller.products.includes(product)) {
    throw new AppError(402, 'plan_required', `the organization's plan has no API access for the ${product} product`, { product });
  }
}
