import { eventually } from '@catalog/testing';
import { hashSecret, parseKey } from '../src/domain/api-keys.js';
import type { GatewayHandle } from '../src/index.js';

/** A catalog read: no catalog service runs in these tests, so a request that passed the key, permission and plan checks ends as 503. */
export const ENTITY = '/api/v1/catalog/entities/0193a6c4-0000-7000-8000-000000000001';

/** The status replica `gateway` gives `key` on `path` (a catalog read unless told). */
export async function statusOn(gateway: GatewayHandle, key: string, path = ENTITY): Promise<number> {
  const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Waits until `gateway`'s replica holds the key in memory (with the secret of `key` when given),
 * so the requests after test the replica, not the database.
 */
export async function heldBy(gateway: GatewayHandle, keyId: string, key?: string): Promise<void> {
  const secretHash = key === undefined ? undefined : hashSecret(parseKey(key)!.secret);
  await eventually(async () => {
    const held = gateway.keys!.held(keyId);
    return held && (!secretHash || held.secret_hash.equals(secretHash)) ? true : undefined;
  });
}
