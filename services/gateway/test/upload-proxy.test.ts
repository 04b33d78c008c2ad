import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { rawRequest, startRecordingServer, startTestGateway, type RawBody, type RecordingServer, type TestGateway } from './support.js';

/**
 * The gateway's proxy of signed fs uploads (`PUT /uploads/…`) reaches the asset listener and
 * nothing else: the upstream URL is the listener's origin plus a checked path and query, so no
 * request can choose another host, port or scheme, or walk out of `/uploads/`: the gateway is no
 * open proxy into the cluster (decision 0050).
 */
describe('upload proxy: no open proxy', () => {
  let assetListener: RecordingServer;
  let elsewhere: RecordingServer;
  let stack: TestGateway;

  beforeAll(async () => {
    assetListener = await startRecordingServer(() => ({ status: 200, body: { size: 2 } }));
    elsewhere = await startRecordingServer(() => ({ status: 200, body: { secret: 'internal answer' } }));
    stack = await startTestGateway({ ASSET_HTTP_URL: assetListener.url, IP_RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => {
    await stack?.stop();
    await assetListener?.close();
    await elsewhere?.close();
  });
  beforeEach(() => {
    assetListener.seen.length = 0;
    elsewhere.seen.length = 0;
  });

  const put = (target: string) =>
    rawRequest(
      stack.gateway.port,
      `PUT ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/wav\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`,
    );

  test('an absolute-form target naming another host is refused with 400 and reaches nobody', async () => {
    for (const target of [
      `http://127.0.0.1:${elsewhere.port}/uploads/x`,
      `http://127.0.0.1:${elsewhere.port}/uploads/a/b/c?ct=audio%2Fwav`,
      `//127.0.0.1:${elsewhere.port}/uploads/x`,
    ]) {
      const answer = await put(target);
      expect({ target, status: answer.status }).toEqual({ target, status: 400 });
      expect(answer.body.error).toMatchObject({ code: 'invalid_request_target', requestId: expect.any(String) });
      expect(answer.text).not.toContain('internal answer');
    }
    expect(elsewhere.seen).toEqual([]);
    expect(assetListener.seen).toEqual([]);
  });

  test('dot-segments (also percent-encoded), backslashes and encoded slashes are refused with 400', async () => {
    for (const target of [
      '/uploads/../blobs/t/a/u',
      '/uploads/a/../../readyz',
      '/uploads/./a/b',
      '/uploads/%2e%2e/blobs/x',
      '/uploads/%2E%2E/%2E%2E/readyz',
      '/uploads/a/.%2e/b',
      '/uploads/a%2f..%2fb',
      '/uploads/a\\..\\b',
      '/uploads/a%5cb',
      '/uploads//a',
      '/uploads/a/b?x=1#frag',
      '/uploads/a?x=%zz',
    ]) {
      const answer = await put(target);
      expect({ target, status: answer.status, code: answer.body?.error?.code }).toEqual({
        target,
        status: 400,
        code: 'invalid_request_target',
      });
    }
    expect(assetListener.seen).toEqual([]);
    expect(elsewhere.seen).toEqual([]);
  });

  test('a well-formed upload target is streamed to the asset listener with its path and query unchanged', async () => {
    const query = 'ct=audio%2Fwav&len=2&exp=1999999999&sig=AbC-_d';
    const answer = await put(`/uploads/0190a1b2-0000-7000-8000-000000000001/0190a1b2-0000-7000-8000-000000000002/u1?${query}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ size: 2 });
    expect(assetListener.seen).toEqual([
      { method: 'PUT', url: `/uploads/0190a1b2-0000-7000-8000-000000000001/0190a1b2-0000-7000-8000-000000000002/u1?${query}`, body: 'hi' },
    ]);
    expect(elsewhere.seen).toEqual([]);
  });
});

/**
 * Writes `head` and `body`, and reads the answer only once the whole request is written, until
 * the connection closes; nothing when the connection was reset under the write (as clients that
 * send a body before they look at the answer do: Python's http.client raises BrokenPipeError).
 * Resolves with what was read and the write's error code, if any.
 */
function writeThenRead(
  port: number,
  head: string,
  body: Buffer,
): Promise<{ status: number | null; body: RawBody | null; failure?: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let failure: string | undefined;
    socket.pause();
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => (failure = (error as NodeJS.ErrnoException).code));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const payload = text.split('\r\n\r\n').slice(1).join('\r\n\r\n');
      resolve({ status: status ? Number(status[1]) : null, body: payload ? (JSON.parse(payload) as RawBody) : null, failure });
    });
    socket.write(head);
    socket.write(body, (error) => {
      if (!error) socket.resume();
    });
  });
}

/**
 * An upload refused while its body is still arriving (decision 0124): the gateway's own 413 for a
 * body longer than its target declared, and a refusal the asset listener answers early, reach a
 * client that reads only after writing its whole body: the gateway reads and drops the rest of the
 * body (within bounds) before it closes, instead of resetting the connection under the client.
 */
describe('upload proxy: refusals before the end of the body', () => {
  const SENT = 8 * 1024 * 1024;
  let assetListener: Server;
  let port: number;
  let stack: TestGateway;

  beforeAll(async () => {
    // Answers 403 at once, then reads the rest of the body before it closes, as the asset listener does.
    assetListener = createServer((req, res) => {
      const text = JSON.stringify({ error: { code: 'invalid_signature', message: 'the URL signature does not match', requestId: 'r' } });
      res.writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' });
      res.write(text);
      req.on('end', () => res.end()).resume();
    });
    await new Promise<void>((resolve) => assetListener.listen(0, '127.0.0.1', resolve));
    port = (assetListener.address() as AddressInfo).port;
    stack = await startTestGateway({ ASSET_HTTP_URL: `http://127.0.0.1:${port}`, IP_RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => {
    await stack?.stop();
    assetListener?.closeAllConnections();
    await new Promise((resolve) => assetListener?.close(resolve));
  });

  const head = (query: string) =>
    `PUT /uploads/0190a1b2-0000-7000-8000-000000000001/0190a1b2-0000-7000-8000-000000000002/u1?${query} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/wav\r\nContent-Length: ${SENT}\r\nConnection: close\r\n\r\n`;

  test.each([
    [
      'a Content-Length above the declared size: 413 payload_too_large',
      'ct=audio%2Fwav&len=1000&exp=1999999999&sig=x',
      413,
      'payload_too_large',
    ],
    ["the asset listener's early 403, relayed with its error body", 'ct=audio%2Fwav&exp=1999999999&sig=x', 403, 'invalid_signature'],
  ])('%s, read by the client after its whole body', async (_name, query, status, code) => {
    const answer = await writeThenRead(stack.gateway.port, head(query), Buffer.alloc(SENT, 7));
    expect({ status: answer.status, code: answer.body?.error?.code, failure: answer.failure }).toEqual({
      status,
      code,
      failure: undefined,
    });
  });
});
