import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { callRpc, newId, subjectsFor, type BusEvent, type NatsConnection, type RpcReply, type Subjects } from '@catalog/platform';
import { eventually, publishEvent, testBus, testCallContext, untilConsumerSettled } from '@catalog/testing';
import { serveAsCatalog, type CatalogStandIn } from './catalog-stand-in.js';
import { put, startStack, type Stack } from './support.js';

const CONSUMER = 'asset-version-events';

/**
 * The catalog's `version.deleted` events, published on the events stream as its relay does,
 * release the file of the deleted version: it becomes standalone and expires like one, unless the
 * asset has become another version's file since or its version is not known.
 */
describe('releasing the files of deleted versions', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let subjects: Subjects;
  let catalog: CatalogStandIn;
  let tenantId: string;
  let key: string;

  beforeAll(async () => {
    stack = await startStack('fs', { ASSET_STANDALONE_RETENTION_SECONDS: '2', ASSET_SWEEP_INTERVAL_MS: '3600000' });
    ({ orgId: tenantId, key } = await stack.api.tenant());
    nc = await testBus('release-test');
    subjects = subjectsFor(stack.env.NATS_PREFIX!);
    // The confirmation of a version's file is recorded by the catalog before it answers (decision 0115).
    catalog = await serveAsCatalog(nc, stack.env.NATS_PREFIX!);
  });
  afterAll(async () => {
    await catalog?.stop();
    await nc?.drain();
    await stack?.stop();
  });

  /** An operation of the asset service as the catalog calls it. */
  async function call(operation: string, request: { params?: Record<string, string>; body?: unknown }, tenant = tenantId): Promise<any> {
    const context = { tenantId: tenant, keyId: null, sourceSystem: 'public-api:catalog-test', requestId: newId() };
    const reply: RpcReply = await callRpc(
      { nc, subjects, callContext: testCallContext() },
      'asset',
      operation,
      { params: request.params ?? {}, query: {}, body: request.body ?? null },
      context,
    );
    if (!reply.ok) throw new Error(`${operation}: ${JSON.stringify(reply.error)}`);
    return reply.body;
  }

  /** A version's file as the catalog makes it (`versionId` omitted: as before assets recorded it). */
  async function versionFile(version: { entityId: string; versionId?: string }, options: { confirm?: boolean } = {}): Promise<string> {
    const created = await call('createVersionAsset', {
      body: { retention: 'attached', upload: { filename: 'cover.png', contentType: 'image/png', size: 64 }, ...version },
    });
    if (options.confirm === false) return created.assetId;
    expect((await put(created.upload.url, created.upload.headers, { stream: Readable.from([Buffer.alloc(64, 3)]) }, 64)).status).toBe(200);
    expect((await stack.api.request('POST', `/api/v1/catalog/assets/${created.assetId}/confirm`, { key })).status).toBe(200);
    return created.assetId;
  }

  function versionDeleted(assetId: string, versionId: string, entityId: string, tenant = tenantId): BusEvent {
    return {
      id: newId(),
      tenantId: tenant,
      type: 'version.deleted',
      occurredAt: new Date().toISOString(),
      product: 'catalog',
      resourceKind: 'version',
      resourceId: versionId,
      dmrn: null,
      sourceSystem: 'public-api:deleter',
      batchId: newId(),
      schemaVersion: 1,
      data: { entityId, kind: 'ARTWORK', assetId, reason: 'deleted' },
    };
  }

  /** Publishes the event and waits until the asset service has handled it. */
  async function deliver(event: BusEvent): Promise<void> {
    await untilConsumerSettled(nc, subjects, CONSUMER, await publishEvent(nc, subjects, event));
  }

  const row = async (id: string) =>
    (await stack.query('select retention, status, entity_id, version_id, expires_at, updated_at from asset.assets where id = $1', [id]))[0];
  const expiry = async (id: string) =>
    (await stack.query('select due_at from asset.expiries where asset_id = $1', [id]))[0]?.due_at ?? null;
  const releases = (id: string) =>
    stack.query("select data, source_system from asset.outbox where type = 'asset.released' and resource_id = $1 order by seq", [id]);
  const read = async (id: string) => (await stack.api.request('GET', `/api/v1/catalog/assets/${id}`, { key })).body;

  it('makes the file standalone with a standalone expiry and an asset.released event; again changes nothing; the sweeper expires it', async () => {
    const entityId = newId();
    const versionId = newId();
    const assetId = await versionFile({ entityId, versionId });
    expect(await row(assetId)).toMatchObject({ retention: 'attached', entity_id: entityId, version_id: versionId, expires_at: null });

    const before = Date.now();
    const event = versionDeleted(assetId, versionId, entityId);
    await deliver(event);
    const released = await read(assetId);
    expect(released).toMatchObject({ status: 'ONLINE', retention: 'standalone', entityId: null });
    const expiresAt = Date.parse(released.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 2000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 2000);
    expect(await expiry(assetId)).toEqual(new Date(expiresAt));
    expect((await row(assetId)).version_id).toBeNull();
    expect(await releases(assetId)).toEqual([
      {
        source_system: 'public-api:deleter',
        data: {
          status: 'ONLINE',
          retention: 'standalone',
          kind: 'ARTWORK',
          contentType: 'image/png',
          size: 64,
          durationMs: null,
          entityId: null,
          versionId,
        },
      },
    ]);

    // Redelivered: the asset no longer belongs to the version.
    const settled = await row(assetId);
    await deliver(event);
    expect(await row(assetId)).toEqual(settled);
    expect(await releases(assetId)).toHaveLength(1);

    const [{ object_key: objectKey }] = await stack.query('select object_key from asset.assets where id = $1', [assetId]);
    await eventually(
      async () => {
        await stack.asset.sweep();
        return (await read(assetId)).status === 'EXPIRED' ? true : undefined;
      },
      15_000,
      250,
    );
    expect(await read(assetId)).toMatchObject({ status: 'EXPIRED', retention: 'standalone', failure: { code: 'retention_elapsed' } });
    expect(existsSync(join(stack.blobDir, 'objects', objectKey))).toBe(false);
    // An expired file stays expired.
    await deliver(event);
    expect((await row(assetId)).status).toBe('EXPIRED');
  });

  it("changes nothing when the asset is another version's file since, when its version is not known, or for another tenant", async () => {
    const entityId = newId();
    const [first, second] = [newId(), newId()];
    const reused = await versionFile({ entityId, versionId: first });
    const otherEntity = newId();
    expect(await call('attachAsset', { params: { id: reused }, body: { entityId: otherEntity, versionId: second } })).toMatchObject({
      retention: 'attached',
      entityId: otherEntity,
      expiresAt: null,
    });
    expect((await row(reused)).version_id).toBe(second);
    const reusedBefore = await row(reused);
    await deliver(versionDeleted(reused, first, entityId));
    expect(await row(reused)).toEqual(reusedBefore);

    // Attached without a version id (before the asset service recorded versions): never released.
    const unknown = await versionFile({ entityId });
    const unknownBefore = await row(unknown);
    expect(unknownBefore.version_id).toBeNull();
    await deliver(versionDeleted(unknown, newId(), entityId));
    expect(await row(unknown)).toEqual(unknownBefore);

    const other = await stack.api.tenant({ name: 'Other' });
    await deliver(versionDeleted(reused, second, otherEntity, other.orgId));
    expect(await row(reused)).toEqual(reusedBefore);
    expect([...(await releases(reused)), ...(await releases(unknown))]).toEqual([]);
  });

  it('a released file a version uses again is attached and stops expiring; the late deletion of the former version changes nothing', async () => {
    const entityId = newId();
    const former = newId();
    const assetId = await versionFile({ entityId, versionId: former });
    await deliver(versionDeleted(assetId, former, entityId));
    expect((await read(assetId)).expiresAt).not.toBeNull();

    const next = newId();
    const attached = await call('attachAsset', { params: { id: assetId }, body: { entityId, versionId: next } });
    expect(attached).toMatchObject({ status: 'ONLINE', retention: 'attached', entityId, expiresAt: null });
    expect(await row(assetId)).toMatchObject({ version_id: next, expires_at: null });
    expect(await expiry(assetId)).toBeNull();

    const settled = await row(assetId);
    await deliver(versionDeleted(assetId, former, entityId));
    expect(await row(assetId)).toEqual(settled);
    // Its own deletion releases it again.
    await deliver(versionDeleted(assetId, next, entityId));
    expect(await row(assetId)).toMatchObject({ retention: 'standalone', version_id: null });
    expect((await releases(assetId)).map((r) => r.data.versionId)).toEqual([former, next]);
  });

  it('a file still awaiting its upload keeps the expiry of an unconfirmed upload', async () => {
    const entityId = newId();
    const versionId = newId();
    const assetId = await versionFile({ entityId, versionId }, { confirm: false });
    const pending = await row(assetId);
    expect(pending.expires_at).not.toBeNull();
    await deliver(versionDeleted(assetId, versionId, entityId));
    expect(await row(assetId)).toMatchObject({
      status: 'PENDING_UPLOAD',
      retention: 'standalone',
      entity_id: null,
      expires_at: pending.expires_at,
    });
    expect(await expiry(assetId)).toEqual(pending.expires_at);
    expect((await releases(assetId))[0]!.data).toMatchObject({ status: 'PENDING_UPLOAD', versionId });
  });
});
