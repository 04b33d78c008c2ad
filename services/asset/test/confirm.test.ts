import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { writeSineWav } from '@catalog/testing';
import { createAsset, download, put, randomFile, startStack, tempDir, type Backend, type Stack } from './support.js';

function bytes(size: number, fill = 7): Readable {
  return Readable.from([Buffer.alloc(size, fill)]);
}

/** Confirmation outcomes, new upload targets, tenancy, and the events recorded with each write. */
describe.each<Backend>(['fs', 's3'])('confirmation on %s', (backend) => {
  let stack: Stack;
  let key: string;
  let otherKey: string;
  const files = tempDir();

  beforeAll(async () => {
    stack = await startStack(backend);
    key = (await stack.api.tenant({ name: 'Radio One' })).key;
    otherKey = (await stack.api.tenant({ name: 'Radio Two' })).key;
  });
  afterAll(async () => {
    await stack?.stop();
    files.remove();
  });

  const create = (upload: Record<string, unknown>, retention = 'standalone') => createAsset(stack.api, key, upload, retention);
  const confirm = (id: string, as = key) => stack.api.request('POST', `/api/v1/catalog/assets/${id}/confirm`, { key: as });
  const events = (id: string) =>
    stack.query<{ type: string; data: any; schema_version: number; resource_kind: string; dmrn: string | null; source_system: string }>(
      'select type, data, schema_version, resource_kind, dmrn, source_system from asset.outbox where resource_id = $1 order by seq',
      [id],
    );

  it('marks audio that ffprobe cannot read FAILED, then takes a new upload to ONLINE', async () => {
    const asset = await create({ filename: 'take.wav', contentType: 'audio/wav', size: 4096 });
    expect((await put(asset.upload.url, asset.upload.headers, { stream: bytes(4096) }, 4096)).status).toBe(200);
    const failed = await confirm(asset.assetId);
    expect(failed.status).toBe(409);
    expect(failed.body.error).toMatchObject({ code: 'asset_failed', details: { reason: 'unreadable_audio', status: 'FAILED' } });
    const again = await confirm(asset.assetId);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('asset_failed');
    const read = await stack.api.request('GET', `/api/v1/catalog/assets/${asset.assetId}`, { key });
    expect(read.body).toMatchObject({ status: 'FAILED', failure: { code: 'unreadable_audio' } });

    const path = join(files.dir, 'take.wav');
    await writeSineWav(path, 2.5);
    const renewed = await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/upload`, {
      key,
      body: { filename: 'take.wav', contentType: 'audio/wav', size: statSync(path).size },
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ assetId: asset.assetId, status: 'PENDING_UPLOAD', failure: null, size: statSync(path).size });
    expect(renewed.body.upload.url).not.toBe(asset.upload.url);
    expect((await put(renewed.body.upload.url, renewed.body.upload.headers, { path })).status).toBe(200);
    const online = await confirm(asset.assetId);
    expect(online.status).toBe(200);
    expect(online.body).toMatchObject({ status: 'ONLINE', durationMs: 2500, failure: null });

    const recorded = await events(asset.assetId);
    expect(recorded.map((e) => e.type)).toEqual(['asset.created', 'asset.failed', 'asset.upload_requested', 'asset.confirmed']);
    for (const event of recorded) {
      expect(event).toMatchObject({ schema_version: 1, resource_kind: 'asset', dmrn: null });
      expect(event.source_system).toMatch(/^public-api:/);
    }
    expect(recorded[1]!.data).toMatchObject({
      status: 'FAILED',
      reason: 'unreadable_audio',
      kind: 'AUDIO',
      contentType: 'audio/wav',
      entityId: null,
    });
    expect(recorded[3]!.data).toEqual({
      status: 'ONLINE',
      retention: 'standalone',
      kind: 'AUDIO',
      contentType: 'audio/wav',
      size: online.body.size,
      durationMs: 2500,
      entityId: null,
    });
  });

  it('refuses a playlist posing as audio without ffprobe reaching the address in it (409 asset_failed)', async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.end('not audio');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const playlist = Buffer.from(`#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.1:${port}/segment.ts\n#EXT-X-ENDLIST\n`);
      const asset = await create({ filename: 'stream.mp3', contentType: 'audio/mpeg', size: playlist.length });
      expect((await put(asset.upload.url, asset.upload.headers, { stream: Readable.from([playlist]) }, playlist.length)).status).toBe(200);
      const refused = await confirm(asset.assetId);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'asset_failed', details: { reason: 'unreadable_audio', status: 'FAILED' } });
      expect(requests).toEqual([]);
    } finally {
      server.close();
    }
  });

  if (backend === 's3') {
    it('marks bytes with another checksum FAILED and removes them', async () => {
      const path = join(files.dir, 'c.png');
      await randomFile(path, 2000);
      const asset = await create({ filename: 'c.png', contentType: 'image/png', size: 2000, checksum: `sha256:${'a'.repeat(64)}` });
      expect((await put(asset.upload.url, asset.upload.headers, { path })).status).toBe(200);
      const failed = await confirm(asset.assetId);
      expect(failed.status).toBe(409);
      expect(failed.body.error.details.reason).toBe('checksum_mismatch');
      const read = await stack.api.request('GET', `/api/v1/catalog/assets/${asset.assetId}`, { key });
      expect(read.body.status).toBe('FAILED');
    });
  }

  it('refuses a new upload target for an ONLINE asset (409) and one of another kind (415)', async () => {
    const asset = await create({ filename: 'logo.png', contentType: 'image/png', size: 10 });
    const otherKind = await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/upload`, {
      key,
      body: { filename: 'logo.mp3', contentType: 'audio/mpeg', size: 10 },
    });
    expect(otherKind.status).toBe(415);
    expect((await put(asset.upload.url, asset.upload.headers, { stream: bytes(10) }, 10)).status).toBe(200);
    expect((await confirm(asset.assetId)).status).toBe(200);
    const online = await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/upload`, {
      key,
      body: { filename: 'logo.png', contentType: 'image/png', size: 10 },
    });
    expect(online.status).toBe(409);
    expect(online.body.error.code).toBe('asset_online');
  });

  it("answers another tenant's asset exactly like a missing one (404)", async () => {
    const asset = await create({ filename: 'mine.png', contentType: 'image/png', size: 10 });
    expect((await put(asset.upload.url, asset.upload.headers, { stream: bytes(10) }, 10)).status).toBe(200);
    const foreignConfirm = await confirm(asset.assetId, otherKey);
    expect(foreignConfirm.status).toBe(404);
    expect(foreignConfirm.body.error.code).toBe('not_found');
    expect((await stack.api.request('GET', `/api/v1/catalog/assets/${asset.assetId}`, { key: otherKey })).status).toBe(404);
    expect(
      (
        await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/upload`, {
          key: otherKey,
          body: { filename: 'x.png', contentType: 'image/png', size: 10 },
        })
      ).status,
    ).toBe(404);
    // Still awaiting confirmation by its owner: the foreign attempt changed nothing.
    expect((await confirm(asset.assetId)).status).toBe(200);
    const foreignDownload = await download(`${stack.baseUrl}/api/v1/catalog/assets/${asset.assetId}/download`, {
      authorization: `Bearer ${otherKey}`,
    });
    expect(foreignDownload.status).toBe(404);
    const missing = await stack.api.request('GET', '/api/v1/catalog/assets/01900000-0000-7000-8000-000000000000', { key });
    expect(missing.status).toBe(404);
  });
});
