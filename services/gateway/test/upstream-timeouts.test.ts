import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { subjectsFor, type NatsConnection } from '@catalog/platform';
import { apiClient, eventually, serveStandIn, testBus, testCallContext, testLogger } from '@catalog/testing';
import { ADMIN_TOKEN, rawRequest, startTestGateway, type TestGateway } from './support.js';

/**
 * Every wait of the gateway's blob proxy ends, so a slow or silent peer cannot hold a connection
 * and its memory for ever (decision 0050): a client trickling an upload is
 * cut off and its upstream request aborted; an asset listener that goes quiet during an upload or a
 * download, and a discovery question nobody answers, end in a clear error or a closed connection.
 */

interface StalledListener {
  url: string;
  /** Upload requests whose body ended before it was complete (the gateway aborted them). */
  aborted: number;
  /** Upload requests received whole. */
  completed: number;
  close(): Promise<void>;
}

/** An asset listener that reads uploads but never answers, and starts downloads but never finishes them. */
async function startStalledListener(): Promise<StalledListener> {
  const state = { aborted: 0, completed: 0 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': '100000' });
      res.write(Buffer.alloc(1000, 1));
      return;
    }
    req.on('data', () => undefined);
    req.on('end', () => {
      state.completed += 1;
    });
    req.on('aborted', () => {
      state.aborted += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get aborted() {
      return state.aborted;
    },
    get completed() {
      return state.completed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const UPLOAD = '/uploads/0190a1b2-0000-7000-8000-000000000001/0190a1b2-0000-7000-8000-000000000002/u1?ct=audio%2Fwav&sig=x';

describe('gateway timeouts', () => {
  let listener: StalledListener;
  let stack: TestGateway;
  let nc: NatsConnection;

  beforeAll(async () => {
    listener = await startStalledListener();
    stack = await startTestGateway({
      ASSET_HTTP_URL: listener.url,
      IP_RATE_LIMIT_PER_MINUTE: '0',
      HTTP_BODY_READ_TIMEOUT_MS: '200',
      HTTP_BODY_MIN_BYTES_PER_SECOND: '1000',
      UPSTREAM_IDLE_TIMEOUT_MS: '300',
    });
    nc = await testBus('fake-asset', { user: 'asset' });
  });
  afterAll(async () => {
    await nc?.drain();
    await stack?.stop();
    await listener?.close();
  });

  test('an upload that stops sending: 408 body_timeout, the connection closed, the upstream request aborted', async () => {
    const abortedBefore = listener.aborted;
    const answer = await rawRequest(
      stack.gateway.port,
      `PUT ${UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: audio/wav\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(10)}`,
    );
    expect(answer.status).toBe(408);
    expect(answer.closed).toBe(true);
    expect(answer.body.error?.code).toBe('body_timeout');
    await eventually(async () => (listener.aborted > abortedBefore ? true : undefined));
    expect(listener.aborted).toBe(abortedBefore + 1);
    expect(listener.completed).toBe(0);
  });

  test('an asset listener that takes an upload and never answers: 504 upstream_timeout', async () => {
    const answer = await rawRequest(
      stack.gateway.port,
      `PUT ${UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: audio/wav\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`,
    );
    expect(answer.status).toBe(504);
    expect(answer.body.error?.code).toBe('upstream_timeout');
  });

  test('a download whose upstream stalls mid-file: the client connection is closed before the declared length', async () => {
    const api = apiClient(stack.gateway.url, ADMIN_TOKEN);
    const { key } = await api.tenant();
    const subjects = subjectsFor(stack.env.NATS_PREFIX!);
    const fakeAsset = await serveStandIn({
      nc,
      subjects,
      service: 'asset',
      logger: testLogger(),
      callContext: testCallContext(),
      handlers: { downloadAsset: async () => ({ body: { location: `${listener.url}/blobs/t/a/u?sig=x` } }) },
    });
    try {
      const response = await fetch(`${stack.gateway.url}/api/v1/catalog/assets/0190a1b2-0000-7000-8000-000000000003/download`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe('100000');
      await expect(response.arrayBuffer()).rejects.toThrow();
    } finally {
      await fakeAsset.stop();
    }
  });
});

describe('a large analysis result whose listener is down', () => {
  let stack: TestGateway;
  let nc: NatsConnection;
  beforeAll(async () => {
    stack = await startTestGateway({ IP_RATE_LIMIT_PER_MINUTE: '0' });
    nc = await testBus('fake-analysis', { user: 'analysis' });
  });
  afterAll(async () => {
    await nc?.drain();
    await stack?.stop();
  });

  test('503 service_unavailable that names the analysis service, not the asset service', async () => {
    const api = apiClient(stack.gateway.url, ADMIN_TOKEN);
    const { key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unreachable = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/results/j?sig=x`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const fakeAnalysis = await serveStandIn({
      nc,
      subjects: subjectsFor(stack.env.NATS_PREFIX!),
      service: 'analysis',
      logger: testLogger(),
      callContext: testCallContext(),
      handlers: { getAnalysis: async () => ({ status: 303, body: { location: unreachable } }) },
    });
    try {
      const response = await fetch(`${stack.gateway.url}/api/v1/catalog/analyses/0190a1b2-0000-7000-8000-000000000004`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(response.status).toBe(503);
      expect(body.error.code).toBe('service_unavailable');
      expect(body.error.message).toBe('the analysis service is not available');
    } finally {
      await fakeAnalysis.stop();
    }
  });
});

describe('asset listener discovery', () => {
  let stack: TestGateway;
  let nc: NatsConnection;
  beforeAll(async () => {
    stack = await startTestGateway({ IP_RATE_LIMIT_PER_MINUTE: '0', ASSET_DISCOVERY_TIMEOUT_MS: '200' });
    nc = await testBus('silent-asset', { user: 'asset' });
  });
  afterAll(async () => {
    await nc?.drain();
    await stack?.stop();
  });

  test('a discovery question nobody answers in time: 503 service_unavailable', async () => {
    // Subscribed, so NATS does not answer "no responders" at once; it never replies.
    nc.subscribe(subjectsFor(stack.env.NATS_PREFIX!).rpc('asset', 'locateAssetListener'), { callback: () => undefined });
    await nc.flush();
    const answer = await rawRequest(
      stack.gateway.port,
      `PUT ${UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: audio/wav\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`,
    );
    expect(answer.status).toBe(503);
    expect(answer.body.error?.code).toBe('service_unavailable');
  });
});
