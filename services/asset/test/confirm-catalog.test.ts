import { Readable } from 'node:stream';
import { callRpc, newId, subjectsFor, type NatsConnection, type RpcReply } from '@catalog/platform';
import { testBus, testCallContext } from '@catalog/testing';
import { serveAsCatalog, type CatalogStandIn } from './catalog-stand-in.js';
import { createAsset, put, startStack, type Stack } from './support.js';

/**
 * Decision 0115: the confirmation of a version's file is recorded by the catalog before the
 * confirmation answers, so a client reading the catalog next sees it; a confirmation the catalog
 * could not record answers 503 and is simply asked again. Standalone files do not involve it.
 */
describe("confirming a version's file tells the catalog first", () => {
  let stack: Stack;
  let nc: NatsConnection;
  let catalog: CatalogStandIn | undefined;
  let tenantId: string;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    stack = await startStack('fs');
    ({ orgId: tenantId, key, keyId } = await stack.api.tenant());
    nc = await testBus('confirm-catalog-test');
  });
  afterAll(async () => {
    await catalog?.stop();
    await nc?.drain();
    await stack?.stop();
  });

  async function startCatalog(): Promise<CatalogStandIn> {
    catalog = await serveAsCatalog(nc, stack.env.NATS_PREFIX!);
    return catalog;
  }
  async function stopCatalog(): Promise<void> {
    await catalog?.stop();
    catalog = undefined;
  }

  /** A new file of a version, as the catalog makes it, with `bytes` uploaded. */
  async function uploadedVersionFile(bytes: Buffer, contentType = 'image/png'): Promise<string> {
    const context = { tenantId, keyId: null, sourceSystem: 'public-api:catalog-test', requestId: newId() };
    const body = {
      retention: 'attached',
      entityId: newId(),
      versionId: newId(),
      upload: { filename: 'f', contentType, size: bytes.length },
    };
    const rpc = { nc, subjects: subjectsFor(stack.env.NATS_PREFIX!), callContext: testCallContext() };
    const reply: RpcReply = await callRpc(rpc, 'asset', 'createVersionAsset', { params: {}, query: {}, body }, context);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    const created = reply.body as { assetId: string; upload: { url: string; headers: Record<string, string> } };
    expect((await put(created.upload.url, created.upload.headers, { stream: Readable.from([bytes]) }, bytes.length)).status).toBe(200);
    return created.assetId;
  }

  const confirm = (id: string) => stack.api.request('POST', `/api/v1/catalog/assets/${id}/confirm`, { key });
  const confirmations = (id: string) =>
    stack.query<{ type: string }>("select type from asset.outbox where resource_id = $1 and type = 'asset.confirmed'", [id]);

  it('the catalog has recorded the ONLINE file, in the name of the confirming key, when the confirmation answers', async () => {
    const standIn = await startCatalog();
    const assetId = await uploadedVersionFile(Buffer.alloc(32, 1));
    const confirmed = await confirm(assetId);
    expect(confirmed.status).toBe(200);
    expect(standIn.recorded).toEqual([{ asset: confirmed.body, tenantId, sourceSystem: `public-api:${keyId}` }]);
    expect(confirmed.body).toMatchObject({ id: assetId, status: 'ONLINE', size: 32 });
    await stopCatalog();
  });

  it('without the catalog the confirmation answers 503; confirming again once it is back records it, with one asset event', async () => {
    const assetId = await uploadedVersionFile(Buffer.alloc(16, 2));
    const refused = await confirm(assetId);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'service_unavailable', details: { assetId, status: 'ONLINE' } });
    // The upload itself is confirmed (and announced): the asset event brings it to the catalog too.
    expect((await stack.api.request('GET', `/api/v1/catalog/assets/${assetId}`, { key })).body.status).toBe('ONLINE');

    const standIn = await startCatalog();
    const again = await confirm(assetId);
    expect(again.status).toBe(200);
    expect(standIn.recorded.map((r) => [r.asset.id, r.asset.status])).toEqual([[assetId, 'ONLINE']]);
    expect(await confirmations(assetId)).toHaveLength(1);
    await stopCatalog();
  });

  it('a FAILED confirmation is recorded by the catalog before the 409', async () => {
    const standIn = await startCatalog();
    const assetId = await uploadedVersionFile(Buffer.alloc(64, 3), 'audio/wav');
    const failed = await confirm(assetId);
    expect(failed.status).toBe(409);
    expect(failed.body.error.code).toBe('asset_failed');
    expect(standIn.recorded.map((r) => [r.asset.id, r.asset.status, r.asset.failure?.code])).toEqual([
      [assetId, 'FAILED', 'unreadable_audio'],
    ]);
    await stopCatalog();
  });

  it('a standalone file is confirmed without the catalog', async () => {
    const asset = await createAsset(stack.api, key, { filename: 'cover.png', contentType: 'image/png', size: 8 });
    expect((await put(asset.upload.url, asset.upload.headers, { stream: Readable.from([Buffer.alloc(8)]) }, 8)).status).toBe(200);
    expect((await confirm(asset.assetId)).body).toMatchObject({ status: 'ONLINE' });
  });
});
