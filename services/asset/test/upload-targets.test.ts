import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { createLogger } from '@catalog/platform';
import { eventually } from '@catalog/testing';
import { Client } from 'minio';
import { createAsset, put, randomFile, s3Infrastructure, startStack, tempDir, type Backend, type Stack } from './support.js';

/** Every file under `dir`, recursively (relative paths). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

async function objectsIn(stack: Stack): Promise<string[]> {
  if (stack.backend === 'fs') return filesUnder(stack.blobDir);
  const s3 = s3Infrastructure();
  const url = new URL(s3.endpoint);
  const client = new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    region: 'us-east-1',
    pathStyle: true,
  });
  const names: string[] = [];
  for await (const item of client.listObjectsV2(stack.bucket, '', true)) names.push((item as { name: string }).name);
  return names;
}

function bytes(size: number, fill = 7): Readable {
  return Readable.from([Buffer.alloc(size, fill)]);
}

/** Signed upload targets: what the signature binds, and what a rejected upload leaves behind (nothing). */
describe.each<Backend>(['fs', 's3'])('upload targets on %s', (backend) => {
  let stack: Stack;
  let key: string;
  const files = tempDir();
  const logLines: string[] = [];

  beforeAll(async () => {
    // Keep every log line (debug and up) to check that no signed URL ever reaches the log.
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logLines.push(chunk.toString());
        callback();
      },
    });
    stack = await startStack(backend, { LOG_LEVEL: 'debug' }, createLogger({ service: 'asset-test', level: 'debug', destination }));
    key = (await stack.api.tenant()).key;
  });
  afterAll(async () => {
    await stack?.stop();
    files.remove();
  });

  const create = (upload: Record<string, unknown>, retention = 'standalone') => createAsset(stack.api, key, upload, retention);

  function withQuery(url: string, change: (query: URLSearchParams) => void): string {
    const parsed = new URL(url);
    change(parsed.searchParams);
    return parsed.toString();
  }

  it('refuses a tampered signature with 403', async () => {
    const asset = await create({ filename: 'a.png', contentType: 'image/png', size: 16 });
    const signatureParam = backend === 'fs' ? 'sig' : 'X-Amz-Signature';
    const tampered = withQuery(asset.upload.url, (q) => {
      const sig = q.get(signatureParam)!;
      q.set(signatureParam, `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
    });
    expect((await put(tampered, asset.upload.headers, { stream: bytes(16) }, 16)).status).toBe(403);
    if (backend === 'fs') {
      // Any signed parameter changed (here the declared size) breaks the signature too.
      const bigger = withQuery(asset.upload.url, (q) => q.set('len', '32'));
      expect((await put(bigger, asset.upload.headers, { stream: bytes(32) }, 32)).status).toBe(403);
      const unsigned = withQuery(asset.upload.url, (q) => q.delete('sig'));
      expect((await put(unsigned, asset.upload.headers, { stream: bytes(16) }, 16)).status).toBe(403);
    }
    expect(await objectsIn(stack)).toEqual([]);
  });

  it("refuses a signature used for another object's path with 403", async () => {
    const first = await create({ filename: 'a.png', contentType: 'image/png', size: 16 });
    const second = await create({ filename: 'b.png', contentType: 'image/png', size: 16 });
    const firstUrl = new URL(first.upload.url);
    const secondUrl = new URL(second.upload.url);
    const swapped = `${secondUrl.origin}${secondUrl.pathname}${firstUrl.search}`;
    const answer = await put(swapped, second.upload.headers, { stream: bytes(16) }, 16);
    expect(answer.status).toBe(403);
    expect(await objectsIn(stack)).toEqual([]);
  });

  it('refuses an expired signature with 403', async () => {
    const shortLived = await startStack(backend, { ASSET_UPLOAD_URL_TTL_SECONDS: '1' });
    try {
      const { key: otherKey } = await shortLived.api.tenant();
      const created = await shortLived.api.request('POST', '/api/v1/catalog/assets', {
        key: otherKey,
        body: { retention: 'standalone', upload: { filename: 'a.png', contentType: 'image/png', size: 16 } },
      });
      // Wait until the URL's expiry has passed (URL expiry has one-second resolution).
      const expiresAt = Date.parse(created.body.upload.expiresAt);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1500));
      const answer = await put(created.body.upload.url, created.body.upload.headers, { stream: bytes(16) }, 16);
      expect(answer.status).toBe(403);
      expect(await objectsIn(shortLived)).toEqual([]);
    } finally {
      await shortLived.stop();
    }
  });

  if (backend === 'fs') {
    it('refuses a body longer than declared (413) and keeps nothing, with or without Content-Length', async () => {
      const asset = await create({ filename: 'a.png', contentType: 'image/png', size: 1024 });
      const declaredTooLong = await put(asset.upload.url, asset.upload.headers, { stream: bytes(2048) }, 2048);
      expect(declaredTooLong.status).toBe(413);
      expect(JSON.parse(declaredTooLong.text).error.code).toBe('payload_too_large');

      // Chunked: the length is only found out while streaming; 4 MiB arrive before the cut.
      async function* chunks() {
        for (let i = 0; i < 64; i++) yield Buffer.alloc(64 * 1024, i);
      }
      const streamedTooLong = await put(asset.upload.url, asset.upload.headers, { stream: Readable.from(chunks()) }, null);
      expect(streamedTooLong.status).toBe(413);
      expect(await objectsIn(stack)).toEqual([]);

      const confirm = await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/confirm`, { key });
      expect(confirm.body.error.code).toBe('upload_missing');
    });

    it('cuts a chunked body off past its declared size after early writebacks began, and keeps nothing', async () => {
      // 20 MiB declared, 40 MiB sent: the store has already asked the disk to write the first 16 MiB.
      const asset = await create({ filename: 'big.png', contentType: 'image/png', size: 20 * 1024 * 1024 });
      async function* chunks() {
        for (let i = 0; i < 40; i++) yield Buffer.alloc(1024 * 1024, i);
      }
      const tooLong = await put(asset.upload.url, asset.upload.headers, { stream: Readable.from(chunks()) }, null);
      expect(tooLong.status).toBe(413);
      // The gateway answers this 413 itself (decision 0116) and aborts the upload it relays: the
      // asset service removes its partial file once it has seen the abort, maybe after the answer.
      expect(await eventually(async () => ((await objectsIn(stack)).length === 0 ? [] : undefined))).toEqual([]);
    });

    it('refuses a body shorter than declared, or with another checksum, and keeps nothing', async () => {
      const path = join(files.dir, 'x.png');
      const sha256 = await randomFile(path, 1000);
      const asset = await create({ filename: 'x.png', contentType: 'image/png', size: 1000, checksum: `sha256:${'0'.repeat(64)}` });
      const wrongSum = await put(asset.upload.url, asset.upload.headers, { path });
      expect(wrongSum.status).toBe(400);
      expect(JSON.parse(wrongSum.text).error.code).toBe('checksum_mismatch');
      async function* short() {
        yield Buffer.alloc(999);
      }
      const shortBody = await put(asset.upload.url, asset.upload.headers, { stream: Readable.from(short()) }, null);
      expect(shortBody.status).toBe(400);
      expect(JSON.parse(shortBody.text).error.code).toBe('upload_size_mismatch');
      expect(await objectsIn(stack)).toEqual([]);
      expect(sha256).toHaveLength(64);
    });

    it('refuses another Content-Type than the signed one (403)', async () => {
      const asset = await create({ filename: 'a.png', contentType: 'image/png' });
      const answer = await put(asset.upload.url, { 'Content-Type': 'image/jpeg' }, { stream: bytes(16) }, 16);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text).error.code).toBe('content_type_mismatch');
    });

    it('closes the upload target once the asset is confirmed (409 upload_closed)', async () => {
      const asset = await create({ filename: 'a.png', contentType: 'image/png' });
      expect((await put(asset.upload.url, asset.upload.headers, { stream: bytes(16) }, 16)).status).toBe(200);
      expect((await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/confirm`, { key })).status).toBe(200);
      const again = await put(asset.upload.url, asset.upload.headers, { stream: bytes(16, 9) }, 16);
      expect(again.status).toBe(409);
      expect(JSON.parse(again.text).error.code).toBe('upload_closed');
    });
  } else {
    it('has the object store refuse a body longer or shorter than declared, or of another type (403), and keeps nothing', async () => {
      const asset = await create({ filename: 'a.png', contentType: 'image/png', size: 1024 });
      // The length and the type are signed into the presigned PUT: the object store checks them.
      const longer = await put(asset.upload.url, asset.upload.headers, { stream: bytes(2048) }, 2048);
      expect(longer.status).toBe(403);
      expect(longer.text).toContain('SignatureDoesNotMatch');
      expect((await put(asset.upload.url, asset.upload.headers, { stream: bytes(1000) }, 1000)).status).toBe(403);
      // Chunked, without a length: refused too (411 Length Required).
      expect((await put(asset.upload.url, asset.upload.headers, { stream: bytes(1024) }, null)).status).toBe(411);
      const otherType = await put(asset.upload.url, { 'Content-Type': 'text/html' }, { stream: bytes(1024) }, 1024);
      expect(otherType.status).toBe(403);
      expect(otherType.text).toContain('SignatureDoesNotMatch');
      expect(await objectsIn(stack)).toEqual([]);
      const missing = await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/confirm`, { key });
      expect(missing.body.error.code).toBe('upload_missing');

      // The declared length and type go through.
      expect((await put(asset.upload.url, asset.upload.headers, { stream: bytes(1024) }, 1024)).status).toBe(200);
      expect((await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/confirm`, { key })).body).toMatchObject({
        status: 'ONLINE',
        size: 1024,
      });
    });

    it('takes an upload whose size was not declared (the length is then unbound), also for a new upload target', async () => {
      const undeclared = await create({ filename: 'a.png', contentType: 'image/png' });
      expect(undeclared.size).toBeNull();
      const renewed = await stack.api.request('POST', `/api/v1/catalog/assets/${undeclared.assetId}/upload`, {
        key,
        body: { filename: 'b.png', contentType: 'image/png' },
      });
      expect(renewed.status).toBe(200);
      // Still of the signed type only.
      const otherType = await put(renewed.body.upload.url, { 'Content-Type': 'text/html' }, { stream: bytes(700) }, 700);
      expect(otherType.status).toBe(403);
      expect((await put(renewed.body.upload.url, renewed.body.upload.headers, { stream: bytes(700) }, 700)).status).toBe(200);
      const confirmed = await stack.api.request('POST', `/api/v1/catalog/assets/${undeclared.assetId}/confirm`, { key });
      expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: 700 });
    });
  }

  it('never writes a signature or a signed URL to the log', () => {
    expect(logLines.length).toBeGreaterThan(0);
    const joined = logLines.join('');
    if (backend === 'fs') expect(joined).toContain('"path":"/uploads/'); // the gateway's access log line, path only
    expect(joined).not.toMatch(/sig=|X-Amz-Signature|X-Amz-Credential|\?ct=/);
  });
});
