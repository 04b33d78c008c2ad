import { startStack, type Stack } from './support.js';

/** Bad inputs to POST /api/v1/catalog/assets: 400 malformed, 413 too large, 415 not accepted. */
describe('creating assets: bad inputs', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack('fs', { ASSET_MAX_BYTES: String(10 * 1024 * 1024) });
    key = (await stack.api.tenant()).key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const create = (body: unknown) => stack.api.request('POST', '/api/v1/catalog/assets', { key, body });
  const upload = { filename: 'song.mp3', contentType: 'audio/mpeg' };

  it('derives the kind from the content type', async () => {
    const cases: Array<[string, string]> = [
      ['audio/mpeg', 'AUDIO'],
      ['audio/flac', 'AUDIO'],
      ['IMAGE/JPEG', 'ARTWORK'],
      ['video/mp4', 'VIDEO'],
    ];
    for (const [contentType, kind] of cases) {
      const created = await create({ retention: 'attached', upload: { filename: 'f', contentType } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ kind, contentType: contentType.toLowerCase(), retention: 'attached', status: 'PENDING_UPLOAD' });
    }
  });

  it('answers a declared size over the configured maximum with 413', async () => {
    const answer = await create({ retention: 'standalone', upload: { ...upload, size: 10 * 1024 * 1024 + 1 } });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: 'payload_too_large', details: { limitBytes: 10 * 1024 * 1024 } });
    expect((await create({ retention: 'standalone', upload: { ...upload, size: 10 * 1024 * 1024 } })).status).toBe(201);
  });

  it('answers a content type that is not accepted with 415', async () => {
    for (const contentType of ['application/pdf', 'text/plain', 'audio/x-made-up', 'application/octet-stream']) {
      const answer = await create({ retention: 'standalone', upload: { ...upload, contentType } });
      expect(answer.status).toBe(415);
      expect(answer.body.error.code).toBe('unsupported_media_type');
    }
  });

  it('answers a malformed upload description with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ retention: 'standalone' }, '/upload'],
      [{ upload }, '/retention'],
      [{ retention: 'forever', upload }, '/retention'],
      [{ retention: 'standalone', upload: { contentType: 'audio/mpeg' } }, '/upload/filename'],
      [{ retention: 'standalone', upload: { filename: 'a.mp3' } }, '/upload/contentType'],
      [{ retention: 'standalone', upload: { ...upload, filename: '' } }, '/upload/filename'],
      [{ retention: 'standalone', upload: { ...upload, filename: 'dir/a.mp3' } }, '/upload/filename'],
      [{ retention: 'standalone', upload: { ...upload, contentType: 'audio/mpeg; charset=x' } }, '/upload/contentType'],
      [{ retention: 'standalone', upload: { ...upload, size: 0 } }, '/upload/size'],
      [{ retention: 'standalone', upload: { ...upload, size: 1.5 } }, '/upload/size'],
      [{ retention: 'standalone', upload: { ...upload, size: '100' } }, '/upload/size'],
      [{ retention: 'standalone', upload: { ...upload, checksum: 'md5:abc' } }, '/upload/checksum'],
      [{ retention: 'standalone', upload: { ...upload, checksum: `sha256:${'z'.repeat(64)}` } }, '/upload/checksum'],
      [{ retention: 'standalone', upload: { ...upload, extra: 1 } }, '/upload/extra'],
      [{ retention: 'standalone', upload, entityId: '01900000-0000-7000-8000-000000000000' }, '/entityId'],
    ];
    for (const [body, path] of cases) {
      const answer = await create(body);
      expect({ body, status: answer.status }).toEqual({ body, status: 400 });
      expect(answer.body.error.code).toBe('invalid_body');
      expect(answer.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    }
  });

  it('needs a key with the catalog permission', async () => {
    expect((await stack.api.request('POST', '/api/v1/catalog/assets', { body: { retention: 'standalone', upload } })).status).toBe(401);
    expect((await stack.api.request('GET', '/api/v1/catalog/assets/not-a-uuid', { key })).status).toBe(404);
  });

  it('documents the asset operations in the OpenAPI document', async () => {
    const doc = await stack.api.request('GET', '/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/catalog/assets',
        '/api/v1/catalog/assets/{id}',
        '/api/v1/catalog/assets/{id}/confirm',
        '/api/v1/catalog/assets/{id}/upload',
        '/api/v1/catalog/assets/{id}/download',
      ]),
    );
    expect(doc.body.paths['/api/v1/catalog/assets/{id}/download'].get.responses['206']).toBeDefined();
  });
});
