import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { createAsset, put, startStack, type Stack } from './support.js';

const MAX_BYTES = 1024 * 1024;
/** Several times ASSET_MAX_BYTES: far more than the listener reads before it answers. */
const SENT_BYTES = 8 * 1024 * 1024;

/** SENT_BYTES in 64 KiB chunks, generated as they are sent (chunked when no length is given). */
function manyBytes(total = SENT_BYTES): Readable {
  async function* chunks() {
    for (let left = total; left > 0; left -= 64 * 1024) yield Buffer.alloc(Math.min(left, 64 * 1024), 7);
  }
  return Readable.from(chunks());
}

const errorOf = (text: string): unknown => (JSON.parse(text) as { error: unknown }).error;

/**
 * An upload the asset listener refuses before it has read the body (a bad signature, another
 * Content-Type, more bytes than ASSET_MAX_BYTES on a target that declared no size) reaches the
 * client through the gateway with the listener's own status and error body, however much of the
 * body was still arriving: never a false 503 "the asset service is not available" (decision 0124).
 */
describe('early refusals of an upload, through the gateway', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack('fs', { ASSET_MAX_BYTES: String(MAX_BYTES) });
    key = (await stack.api.tenant()).key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const create = () => createAsset(stack.api, key, { filename: 'a.png', contentType: 'image/png' });

  it('a chunked body past ASSET_MAX_BYTES on a target that declared no size is 413 payload_too_large, and the target still takes its file', async () => {
    const asset = await create();
    expect(new URL(asset.upload.url).searchParams.has('len')).toBe(false);
    const answer = await put(asset.upload.url, asset.upload.headers, { stream: manyBytes() }, null);
    expect({ status: answer.status, error: errorOf(answer.text) }).toEqual({
      status: 413,
      error: { code: 'payload_too_large', message: expect.any(String), details: { limitBytes: MAX_BYTES }, requestId: expect.any(String) },
    });
    expect((await put(asset.upload.url, asset.upload.headers, { stream: manyBytes(1000) }, 1000)).status).toBe(200);
  });

  it('a Content-Length past ASSET_MAX_BYTES on a target that declared no size is 413 payload_too_large', async () => {
    const asset = await create();
    const answer = await put(asset.upload.url, asset.upload.headers, { stream: manyBytes() }, SENT_BYTES);
    expect({ status: answer.status, code: (errorOf(answer.text) as { code: string }).code }).toEqual({
      status: 413,
      code: 'payload_too_large',
    });
  });

  it('a tampered signature is 403 invalid_signature, with a length or chunked', async () => {
    const asset = await create();
    const tampered = new URL(asset.upload.url);
    const sig = tampered.searchParams.get('sig')!;
    tampered.searchParams.set('sig', `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
    for (const length of [SENT_BYTES, null]) {
      const answer = await put(tampered.toString(), asset.upload.headers, { stream: manyBytes() }, length);
      expect({ length, status: answer.status, error: errorOf(answer.text) }).toEqual({
        length,
        status: 403,
        error: { code: 'invalid_signature', message: expect.any(String), requestId: expect.any(String) },
      });
    }
  });

  it('another Content-Type than the signed one is 403 content_type_mismatch', async () => {
    const asset = await create();
    const answer = await put(asset.upload.url, { 'Content-Type': 'image/jpeg' }, { stream: manyBytes() }, null);
    expect({ status: answer.status, code: (errorOf(answer.text) as { code: string }).code }).toEqual({
      status: 403,
      code: 'content_type_mismatch',
    });
  });
});

/**
 * After an early refusal the listener reads and drops the rest of the body for a bounded time and
 * number of bytes only (decision 0124): a client that never stops sending is answered, then cut off.
 */
describe('the asset listener after an early refusal', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack('fs', { ASSET_MAX_BYTES: String(MAX_BYTES) });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers a body that never ends, then closes the connection', async () => {
    const { port } = new URL(stack.asset.listenerUrl);
    const received: Buffer[] = [];
    let sent = 0;
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      const chunk = Buffer.alloc(64 * 1024, 7);
      const send = (): void => {
        while (!socket.destroyed && socket.write(chunk)) sent += chunk.length;
      };
      socket.on('drain', send);
      socket.on('data', (data: Buffer) => received.push(data));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
      socket.write('PUT /uploads/a/b/c?sig=x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n');
      // One chunk that says it is 1 TiB long: the listener would read it for ever.
      socket.write(`${(1024 ** 4).toString(16)}\r\n`);
      send();
    });
    expect(Buffer.concat(received).toString('utf8')).toMatch(/^HTTP\/1\.1 403 /);
    expect(sent).toBeGreaterThan(0);
  });
});
