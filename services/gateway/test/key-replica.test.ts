import { performance } from 'node:perf_hooks';
import { readConfig } from '@catalog/platform';
import { apiClient, capturingLogger, testLogger, type ApiClient } from '@catalog/testing';
import { startKeyReplica } from '../src/domain/key-replica.js';
import { gatewayConfig, startGateway, type GatewayHandle } from '../src/index.js';
import { pruneKeyChanges } from '../src/persistence/key-changes.js';
import { heldBy, statusOn } from './replicas.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from './support.js';

/**
 * Two gateway replicas on one database and NATS prefix, each with its API keys in memory
 * (decision 0070): a change made through replica A reaches replica B within the bound, and a
 * replica that stops following the change log reads keys from the database once the bound passed.
 */
const BOUND_MS = 1_000;
let a: TestGateway;
let b: GatewayHandle;
let adminA: ApiClient;

beforeAll(async () => {
  a = await startTestGateway({ API_KEY_MAX_STALENESS_MS: String(BOUND_MS) });
  b = await startGateway(readConfig(gatewayConfig, a.env), { logger: testLogger('gateway-b') });
  adminA = apiClient(a.gateway.url, ADMIN_TOKEN);
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

/**
 * Asks replica `gateway` until it answers `expected` or the bound has passed since `since`; then
 * once more: a request sent after the bound must get `expected` whatever the machine's load,
 * since a replica that has not read the change log since the change reads the database.
 */
async function refusedWithinBound(gateway: GatewayHandle, key: string, expected: number, since: number): Promise<void> {
  while (performance.now() - since < BOUND_MS && (await statusOn(gateway, key)) !== expected) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  while (performance.now() - since < BOUND_MS) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await statusOn(gateway, key)).toBe(expected);
}

test('a key revoked through replica A is refused by replica B within the bound (401)', async () => {
  const { keyId, key } = await adminA.tenant({ name: 'Revoked FM' });
  await heldBy(b, keyId);
  expect(await statusOn(b, key)).toBe(503);
  const revoke = await adminA.admin('DELETE', `/admin/v1/api-keys/${keyId}`);
  expect(revoke.status).toBe(204);
  const since = performance.now();
  expect(await statusOn(a.gateway, key)).toBe(401);
  await refusedWithinBound(b, key, 401, since);
  expect(b.keys!.held(keyId)).toBeUndefined();
});

test('a key rotated through replica A: B takes the new secret at once and refuses the old one within the bound', async () => {
  const { keyId, key } = await adminA.tenant({ name: 'Rotated FM' });
  await heldBy(b, keyId);
  const rotate = await adminA.admin<{ key: string }>('POST', `/admin/v1/api-keys/${keyId}/rotate`);
  expect(rotate.status).toBe(200);
  const since = performance.now();
  // A secret the replica does not know yet is read from the database: the new key works at once everywhere.
  expect(await statusOn(b, rotate.body.key)).toBe(503);
  expect(await statusOn(a.gateway, key)).toBe(401);
  await refusedWithinBound(b, key, 401, since);
});

test("an organisation's plan change through replica A reaches replica B within the bound (402 plan_required)", async () => {
  const { orgId, keyId, key } = await adminA.tenant({ name: 'Plan FM', products: ['catalog'] });
  await heldBy(b, keyId);
  expect(await statusOn(b, key)).toBe(503);
  const change = await adminA.admin('PATCH', `/admin/v1/organizations/${orgId}`, { products: [] });
  expect(change.status).toBe(200);
  const since = performance.now();
  expect(await statusOn(a.gateway, key)).toBe(402);
  await refusedWithinBound(b, key, 402, since);
});

test('a key created through replica A works on replica B at once (a key the replica lacks is read from the database)', async () => {
  const { key } = await adminA.tenant({ name: 'New FM' });
  expect(await statusOn(b, key)).toBe(503);
});

test('a replica that stopped following the change log reads keys from the database once the bound passed: the revoked key is refused', async () => {
  const { keyId, key } = await adminA.tenant({ name: 'Stale FM' });
  await heldBy(b, keyId);
  await b.keys!.stop();
  const revoke = await adminA.admin('DELETE', `/admin/v1/api-keys/${keyId}`);
  expect(revoke.status).toBe(204);
  const since = performance.now();
  await refusedWithinBound(b, key, 401, since);
  // B still holds the key as it was before the revocation, but no longer trusts it.
  expect(b.keys!.held(keyId)).toBeDefined();
  expect(b.keys!.isCurrent()).toBe(false);
});

describe('the change log is pruned (decision 0073)', () => {
  /** A replica that only reads the log when told to (its poll is 15 s away), as one cut off from it would be. */
  const quietReplica = (logger = testLogger('gateway-c')) =>
    startKeyReplica({ pool: a.gateway.database.pool, logger, maxStalenessMs: 60_000 });

  test('a replica behind a pruned change reloads every key: the key revoked meanwhile is gone, the others stay', async () => {
    const revoked = await adminA.tenant({ name: 'Pruned FM' });
    const kept = await adminA.tenant({ name: 'Kept FM' });
    const replica = await quietReplica();
    try {
      expect(replica.held(revoked.keyId)).toBeDefined();
      expect((await adminA.admin('DELETE', `/admin/v1/api-keys/${revoked.keyId}`)).status).toBe(204);
      expect(await pruneKeyChanges(a.gateway.database.pool, 0)).toBeGreaterThan(0);
      await replica.sync();
      expect(replica.held(revoked.keyId)).toBeUndefined();
      expect(replica.credentials(kept.keyId)).toBeDefined();
    } finally {
      await replica.stop();
    }
  });

  test('a replica started after a prune that emptied the log is current and does not reload again', async () => {
    await adminA.tenant({ name: 'Before Prune FM' });
    await pruneKeyChanges(a.gateway.database.pool, 0);
    const { logger, lines } = capturingLogger('gateway-d');
    const replica = await quietReplica(logger);
    try {
      const { keyId } = await adminA.tenant({ name: 'After Prune FM' });
      await replica.sync();
      expect(replica.credentials(keyId)).toBeDefined();
      expect(lines().filter((line) => String(line.msg).includes('reloading every key'))).toEqual([]);
    } finally {
      await replica.stop();
    }
  });

  test('a prune keeps the changes younger than the retention', async () => {
    await adminA.tenant({ name: 'Young FM' });
    expect(await pruneKeyChanges(a.gateway.database.pool, 60_000)).toBe(0);
  });
});
