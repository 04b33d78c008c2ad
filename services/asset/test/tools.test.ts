import { Readable } from 'node:stream';
import { writeSineWav } from '@catalog/testing';
import { createAsset, put, startStack, tempDir, type Stack } from './support.js';

/** Without ffprobe no audio can be read: readiness fails with a clear message, and confirmations of audio with 503, never 500. */
describe('without ffprobe', () => {
  let stack: Stack;
  let key: string;
  const files = tempDir();

  beforeAll(async () => {
    stack = await startStack('fs', { FFPROBE_PATH: '/nonexistent/bin/ffprobe' });
    key = (await stack.api.tenant()).key;
  });
  afterAll(async () => {
    await stack?.stop();
    files.remove();
  });

  it('is not ready, naming the tool and FFPROBE_PATH', async () => {
    const response = await fetch(`${stack.asset.listenerUrl}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; reason: string };
    expect(body.status).toBe('not_ready');
    expect(body.reason).toContain('ffprobe');
    expect(body.reason).toContain('FFPROBE_PATH');
    expect(body.reason).toContain('/nonexistent/bin/ffprobe');
    expect((await fetch(`${stack.asset.listenerUrl}/healthz`)).status).toBe(200);
  });

  it('answers a confirmation of audio with 503 service_unavailable and leaves the asset waiting; other kinds confirm', async () => {
    const path = `${files.dir}/tone.wav`;
    await writeSineWav(path, 1);
    const { statSync } = await import('node:fs');
    const size = statSync(path).size;
    const audio = await createAsset(stack.api, key, { filename: 'tone.wav', contentType: 'audio/wav', size });
    expect((await put(audio.upload.url, audio.upload.headers, { path })).status).toBe(200);
    const refused = await stack.api.request('POST', `/api/v1/catalog/assets/${audio.assetId}/confirm`, { key });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'service_unavailable' });
    expect(refused.body.error.message).toContain('FFPROBE_PATH');
    expect((await stack.api.request('GET', `/api/v1/catalog/assets/${audio.assetId}`, { key })).body).toMatchObject({
      status: 'PENDING_UPLOAD',
      failure: null,
    });

    const image = await createAsset(stack.api, key, { filename: 'cover.png', contentType: 'image/png', size: 8 });
    expect((await put(image.upload.url, image.upload.headers, { stream: Readable.from([Buffer.alloc(8)]) }, 8)).status).toBe(200);
    expect((await stack.api.request('POST', `/api/v1/catalog/assets/${image.assetId}/confirm`, { key })).status).toBe(200);
  });
});
