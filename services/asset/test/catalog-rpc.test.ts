import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { callRpc, decodeBusEvent, newId, subjectsFor, type CallContext, type NatsConnection, type RpcReply } from '@catalog/platform';
import { eventually, testBus, testCallContext } from '@catalog/testing';
import { put, startStack, type Stack } from './support.js';

/**
 * The asset operations as the catalog calls them over NATS for versions: create an attached asset
 * for an entity, read one (404 when foreign), attach an existing one, and the events it learns from.
 */
describe('asset operations for the catalog (NATS)', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let tenantA: string;
  let tenantB: string;

  beforeAll(async () => {
    stack = await startStack('fs');
    tenantA = (await stack.api.tenant({ name: 'A' })).orgId;
    tenantB = (await stack.api.tenant({ name: 'B' })).orgId;
    nc = await testBus('catalog-test');
  });
  afterAll(async () => {
    await nc?.drain();
    await stack?.stop();
  });

  function call(operation: string, tenantId: string, request: { params?: Record<string, string>; body?: unknown }): Promise<RpcReply> {
    const context: CallContext = { tenantId, keyId: null, sourceSystem: 'public-api:test', requestId: randomUUID() };
    return callRpc(
      { nc, subjects: subjectsFor(stack.env.NATS_PREFIX!), callContext: testCallContext() },
      'asset',
      operation,
      { params: request.params ?? {}, query: {}, body: request.body ?? null },
      context,
    );
  }

  it('creates an attached asset for an entity version, reads it, and records the entity in its events', async () => {
    const entityId = newId();
    const created = await call('createVersionAsset', tenantA, {
      body: { retention: 'attached', entityId, upload: { filename: 'radio-edit.wav', contentType: 'audio/wav', size: 10 } },
    });
    expect(created).toMatchObject({ ok: true, status: 201 });
    const asset = (created as { body: any }).body;
    expect(asset).toMatchObject({ retention: 'attached', entityId, kind: 'AUDIO', status: 'PENDING_UPLOAD', upload: { method: 'PUT' } });

    const read = await call('getAsset', tenantA, { params: { id: asset.assetId } });
    expect(read).toMatchObject({ ok: true, status: 200, body: { id: asset.assetId, entityId, status: 'PENDING_UPLOAD' } });
    const foreign = await call('getAsset', tenantB, { params: { id: asset.assetId } });
    expect(foreign).toMatchObject({ ok: false, error: { status: 404, code: 'not_found' } });

    const [event] = await stack.query<{ type: string; data: Record<string, unknown> }>(
      'select type, data from asset.outbox where resource_id = $1',
      [asset.assetId],
    );
    expect(event).toEqual({
      type: 'asset.created',
      data: {
        status: 'PENDING_UPLOAD',
        retention: 'attached',
        kind: 'AUDIO',
        contentType: 'audio/wav',
        size: 10,
        durationMs: null,
        entityId,
      },
    });
  });

  it('publishes asset events on the events stream, where the catalog learns status changes', async () => {
    const subjects = subjectsFor(stack.env.NATS_PREFIX!);
    const received: any[] = [];
    const subscription = nc.subscribe(subjects.events('catalog', 'asset.confirmed'), {
      callback: (_error, msg) => void received.push(decodeBusEvent(msg.data)),
    });
    const { key, orgId } = await stack.api.tenant({ name: 'D' });
    const created = await stack.api.request('POST', '/api/v1/catalog/assets', {
      key,
      body: { retention: 'attached', upload: { filename: 'b.png', contentType: 'image/png', size: 8 } },
    });
    await put(created.body.upload.url, created.body.upload.headers, { stream: Readable.from([Buffer.alloc(8)]) }, 8);
    expect((await stack.api.request('POST', `/api/v1/catalog/assets/${created.body.assetId}/confirm`, { key })).status).toBe(200);
    // The relay publishes committed rows below the cluster's oldest open transaction: a long
    // transaction elsewhere on the same Postgres (another test) can hold it back for a while.
    const event = await eventually(async () => received.find((e) => e?.resourceId === created.body.assetId), 80_000);
    subscription.unsubscribe();
    expect(event).toMatchObject({
      type: 'asset.confirmed',
      tenantId: orgId,
      resourceKind: 'asset',
      dmrn: null,
      schemaVersion: 1,
      data: { status: 'ONLINE', kind: 'ARTWORK', size: 8, retention: 'attached' },
    });
  }, 90_000);

  it('validates internal calls too', async () => {
    const bad = await call('createVersionAsset', tenantA, { body: { retention: 'attached', upload: { filename: 'x' } } });
    expect(bad).toMatchObject({ ok: false, error: { status: 400, code: 'invalid_body' } });
  });

  it("the public createAsset takes only the public body: naming an entity or a version is the internal operation's", async () => {
    const upload = { filename: 'x.wav', contentType: 'audio/wav', size: 10 };
    for (const extra of [{ entityId: newId() }, { versionId: newId() }]) {
      const bad = await call('createAsset', tenantA, { body: { retention: 'attached', upload, ...extra } });
      expect(bad).toMatchObject({
        ok: false,
        error: { status: 400, code: 'invalid_body', details: { fields: [{ message: 'is not a known field' }] } },
      });
    }
  });

  it('attaches a standalone asset: it stops expiring; attaching again records nothing', async () => {
    const { key, orgId: tenant } = await stack.api.tenant({ name: 'C' });
    const created = await stack.api.request('POST', '/api/v1/catalog/assets', {
      key,
      body: { retention: 'standalone', upload: { filename: 'a.png', contentType: 'image/png' } },
    });
    await put(created.body.upload.url, created.body.upload.headers, { stream: Readable.from([Buffer.alloc(8)]) }, 8);
    const confirmed = await stack.api.request('POST', `/api/v1/catalog/assets/${created.body.assetId}/confirm`, { key });
    expect(confirmed.body.expiresAt).not.toBeNull();
    const entityId = newId();
    const attached = await call('attachAsset', tenant, { params: { id: created.body.assetId }, body: { entityId } });
    expect(attached).toMatchObject({ ok: true, body: { retention: 'attached', entityId, expiresAt: null, status: 'ONLINE' } });
    const again = await call('attachAsset', tenant, { params: { id: created.body.assetId }, body: { entityId } });
    expect(again).toMatchObject({ ok: true, body: { retention: 'attached' } });
    expect(await call('attachAsset', tenantB, { params: { id: created.body.assetId }, body: {} })).toMatchObject({
      ok: false,
      error: { status: 404 },
    });
    const types = await stack.query<{ type: string }>('select type from asset.outbox where resource_id = $1 order by seq', [
      created.body.assetId,
    ]);
    expect(types.map((t) => t.type)).toEqual(['asset.created', 'asset.confirmed', 'asset.attached']);
    expect(await stack.query('select * from asset.expiries where asset_id = $1', [created.body.assetId])).toEqual([]);
  });
});
