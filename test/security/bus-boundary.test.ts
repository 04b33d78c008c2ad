import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  callContextKeys,
  encodeBusEvent,
  newId,
  sealCallContext,
  subjectsFor,
  type CallContext,
  type NatsConnection,
  type RpcReply,
  type Subjects,
} from '@catalog/platform';
import { eventually, natsUsers, sineWav, testBus, testCredentials, type TestTenant } from '@catalog/testing';
import { apiClient } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * Issue 17, item 3 (decisions 0055, 0056): NATS is an authenticated boundary. Whoever reaches
 * NATS without a service's credentials can call no operation, publish no event, answer no
 * discovery request and read no reply; a service answers only calls whose context the gateway
 * (or a service) signed for exactly that subject, and not after it expired.
 */
let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let subjects: Subjects;
let tenant: TestTenant;

beforeAll(async () => {
  if (!natsUsers()) throw new Error('these tests need the NATS users of `npm test` (CATALOG_CREDENTIALS_FILE)');
  system = await startSystem();
  api = apiClient(system.baseUrl);
  subjects = subjectsFor(system.env.NATS_PREFIX!);
  tenant = await api.tenant({ name: 'Victim Radio' });
});
afterAll(() => system?.stop());

/** The errors the server reports to connection `nc` (permission violations), as they arrive. */
function serverErrors(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'error') seen.push(status.error.message);
  })();
  return seen;
}

/** Resolves with the error a subscription ended with (a permission violation), or null if it stays open 2 s. */
async function subscriptionRefusal(nc: NatsConnection, subject: string, queue?: string): Promise<string | null> {
  let received = 0;
  const subscription = nc.subscribe(subject, {
    ...(queue ? { queue } : {}),
    callback: (error) => {
      if (!error) received += 1;
    },
  });
  const closed = await Promise.race([subscription.closed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 2_000))]);
  if (closed === 'open') subscription.unsubscribe();
  expect(received).toBe(0);
  return closed instanceof Error ? closed.message : null;
}

function tenantHeaders(tenantId: string): MsgHdrs {
  const h = natsHeaders();
  h.set('Catalog-Tenant', tenantId);
  h.set('Catalog-Key-Id', tenant.keyId);
  h.set('Catalog-Source-System', 'public-api:attacker');
  h.set('Catalog-Request-Id', newId());
  return h;
}

describe('a client with no service credentials (the NATS user `nobody`)', () => {
  let nobody: NatsConnection;
  let errors: string[];

  beforeAll(async () => {
    nobody = await testBus('attacker', { user: 'nobody' });
    errors = serverErrors(nobody);
  });
  afterAll(() => nobody?.close());

  test('cannot call an internal or a public operation, whatever Catalog-Tenant it sends', async () => {
    const body = JSON.stringify({ params: { id: newId() }, query: {}, body: { entityId: newId(), versionId: newId() } });
    for (const subject of [
      subjects.rpc('asset', 'attachAsset'),
      subjects.rpc('asset', 'releaseAsset'),
      subjects.rpc('catalog', 'listEntities'),
      subjects.rpc('events', 'listEvents'),
    ]) {
      await expect(nobody.request(subject, body, { timeout: 2_000, headers: tenantHeaders(tenant.orgId) })).rejects.toThrow(
        `Permissions Violation for Publish to "${subject}"`,
      );
    }
  });

  test('cannot publish into the events stream: the feed never shows a forged event', async () => {
    const forged = {
      id: newId(),
      tenantId: tenant.orgId,
      type: 'entity.deleted',
      occurredAt: new Date().toISOString(),
      product: 'catalog',
      resourceKind: 'entity',
      resourceId: newId(),
      dmrn: null,
      sourceSystem: 'attacker',
      batchId: newId(),
      schemaVersion: 1,
      data: {},
    };
    const subject = subjects.events('catalog', 'entity.deleted');
    nobody.publish(subject, encodeBusEvent(forged));
    await nobody.flush();
    await eventually(async () => (errors.some((e) => e.includes(`Permissions Violation for Publish to "${subject}"`)) ? true : undefined));
    // A real write of the tenant reaches the feed; the forged event never does.
    const created = await api.request('POST', '/api/v1/catalog/entities', { key: tenant.key, body: { type: 'song', title: 'Real' } });
    expect(created.status).toBe(201);
    const feed = await eventually(async () => {
      const page = await api.request('GET', '/api/v1/catalog/events?limit=500', { key: tenant.key });
      return page.body.events.some((e: { resourceId: string }) => e.resourceId === created.body.id) ? page.body.events : undefined;
    }, 20_000);
    expect(feed.map((e: { id: string }) => e.id)).not.toContain(forged.id);
  });

  test('cannot use the JetStream API (no consumer of its own on the events stream)', async () => {
    await expect(jetstreamManager(nobody)).rejects.toThrow(/Permissions Violation for Publish to "\$JS\.API\.INFO"/);
  });

  test('cannot subscribe to the asset discovery subject, the RPC subjects, the events or anyone’s replies', async () => {
    const attempts: Array<[string, string?]> = [
      [subjects.rpc('asset', 'locateAssetListener'), 'asset'],
      [subjects.rpc('asset', 'locateAssetListener')],
      [subjects.rpc('asset', 'attachAsset'), 'asset'],
      [subjects.rpc('catalog', 'createEntity')],
      [subjects.eventsWildcard],
      ['_INBOX.>'],
      ['_INBOX.gateway.>'],
      ['>'],
    ];
    for (const [subject, queue] of attempts) {
      expect({ subject, queue, refusal: await subscriptionRefusal(nobody, subject, queue) }).toEqual({
        subject,
        queue,
        refusal: `Permissions Violation for Subscription to "${subject}"${queue ? ` using queue "${queue}"` : ''}`,
      });
    }
  });

  test('so it never receives an upload stream: uploads through the gateway still reach the asset service', async () => {
    // An attacker's listener, which would get the bytes if it could answer the discovery question.
    const hits: string[] = [];
    const server: Server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answering = nobody.subscribe(subjects.rpc('asset', 'locateAssetListener'), {
        callback: (error, msg) => {
          if (!error) msg.respond(JSON.stringify({ url }));
        },
      });
      const wav = await sineWav(1, { sampleRate: 8_000 });
      const created = await api.request('POST', '/api/v1/catalog/assets', {
        key: tenant.key,
        body: { retention: 'standalone', upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length } },
      });
      expect(created.status).toBe(201);
      const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav });
      expect(put.status).toBe(200);
      const confirmed = await api.request('POST', `/api/v1/catalog/assets/${created.body.assetId}/confirm`, { key: tenant.key });
      expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: wav.length });
      expect(await answering.closed).toBeInstanceOf(Error);
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });
});

describe('each service is held to its own subjects', () => {
  test('the gateway may call public operations only; a service may publish only its own events', async () => {
    const gateway = await testBus('as-gateway', { user: 'gateway' });
    const catalog = await testBus('as-catalog', { user: 'catalog' });
    const catalogErrors = serverErrors(catalog);
    try {
      const internal = subjects.rpc('asset', 'attachAsset');
      await expect(gateway.request(internal, '{}', { timeout: 2_000 })).rejects.toThrow(
        `Permissions Violation for Publish to "${internal}"`,
      );
      expect(await subscriptionRefusal(gateway, subjects.rpc('catalog', 'createEntity'))).toMatch(/Permissions Violation for Subscription/);
      const assetEvent = subjects.events('catalog', 'asset.expired');
      catalog.publish(assetEvent, '{}');
      await catalog.flush();
      await eventually(async () =>
        catalogErrors.some((e) => e.includes(`Permissions Violation for Publish to "${assetEvent}"`)) ? true : undefined,
      );
      expect(await subscriptionRefusal(catalog, subjects.rpc('asset', 'attachAsset'), 'asset')).toMatch(
        /Permissions Violation for Subscription/,
      );
    } finally {
      await gateway.close();
      await catalog.close();
    }
  });
});

describe('a service refuses a call whose context is not signed for it, even from a user that may publish there (the gateway)', () => {
  let gateway: NatsConnection;
  const secret = () => testCredentials().callContextSecret;

  beforeAll(async () => {
    gateway = await testBus('forger', { user: 'gateway' });
  });
  afterAll(() => gateway?.close());

  const context = (): CallContext => ({
    tenantId: tenant.orgId,
    keyId: tenant.keyId,
    permissions: ['catalog:api'],
    sourceSystem: `public-api:${tenant.keyId}`,
    requestId: newId(),
  });
  const request = JSON.stringify({ params: {}, query: {}, body: null });

  async function send(subject: string, headers: MsgHdrs): Promise<RpcReply> {
    return (await gateway.request(subject, request, { timeout: 5_000, headers })).json<RpcReply>();
  }

  const refused = (reason: string) => ({
    ok: false,
    error: expect.objectContaining({ status: 401, code: 'call_context_rejected', details: { reason } }),
  });

  test('a correctly signed context is answered', async () => {
    const subject = subjects.rpc('catalog', 'listEntities');
    expect(await send(subject, sealCallContext(callContextKeys(secret()), subject, context()))).toMatchObject({ ok: true, status: 200 });
  });

  test('no signed context at all (only Catalog-Tenant)', async () => {
    expect(await send(subjects.rpc('catalog', 'listEntities'), tenantHeaders(tenant.orgId))).toEqual(refused('missing'));
  });

  test('a context signed with another key, or altered after signing', async () => {
    const subject = subjects.rpc('catalog', 'listEntities');
    expect(
      await send(subject, sealCallContext(callContextKeys('not-the-secret-of-this-deployment-0123456789'), subject, context())),
    ).toEqual(refused('forged'));
    const altered = sealCallContext(callContextKeys(secret()), subject, context());
    altered.set('Catalog-Tenant', newId());
    expect(await send(subject, altered)).toEqual(refused('forged'));
  });

  test('an expired context', async () => {
    const subject = subjects.rpc('catalog', 'listEntities');
    expect(await send(subject, sealCallContext(callContextKeys(secret(), -1_000), subject, context()))).toEqual(refused('expired'));
  });

  test('a context signed for another subject (replayed onto this one)', async () => {
    const signedFor = subjects.rpc('catalog', 'getEntity');
    const sentTo = subjects.rpc('catalog', 'listEntities');
    expect(await send(sentTo, sealCallContext(callContextKeys(secret()), signedFor, context()))).toEqual(refused('wrong_subject'));
  });
});
