import { rawRequest, startRecordingServer, startTestGateway, type RecordingServer, type TestGateway } from './support.js';

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
