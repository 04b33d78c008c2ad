import { s3BlobStore } from '../support/s3.js';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';

/**
 * A client written to the interface alone (decision 0148): the interface's upload description
 * has no size, and its confirmation shows no payload. On both blob backends (s3 is the Helm
 * chart's default) an upload described without `size` is taken and confirmed, a confirmation
 * sent with `{}` (as generic HTTP clients send an empty JSON payload) is one like any other, and a
 * declared size is still enforced.
 */
describe.each([
  ['fs', {}],
  ['s3', s3BlobStore()],
] as const)('uploads as the interface describes them, on %s', (backend, blobEnv) => {
  const sut = useSystem({ env: { ...PATIENT_CALLS, ...blobEnv } });
  const bytes = Buffer.alloc(3000, 5);

  const put = (upload: { url: string; headers: Record<string, string> }, body: Buffer) =>
    fetch(upload.url, { method: 'PUT', headers: upload.headers, body });

  test('a standalone file described without size is uploaded and confirmed with a body of {}', async () => {
    const { api } = sut;
    const { key } = await api.tenant();
    const created = await api.request('POST', '/api/v1/catalog/assets', {
      key,
      body: { retention: 'standalone', upload: { filename: 'cover.png', contentType: 'image/png' } },
    });
    expect({ status: created.status, error: created.body.error }).toEqual({ status: 201, error: undefined });
    expect((await put(created.body.upload, bytes)).status).toBe(200);
    const confirmed = await api.request('POST', `/api/v1/catalog/assets/${created.body.id}/confirm`, { key, body: {} });
    expect({ status: confirmed.status, error: confirmed.body.error }).toEqual({ status: 200, error: undefined });
    expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: bytes.length });
    // Confirming again, without a body this time, answers the same confirmation.
    const again = await api.request('POST', `/api/v1/catalog/assets/${created.body.id}/confirm`, { key });
    expect(again.body).toEqual(confirmed.body);
    // A payload that is not empty is still refused.
    const withField = await api.request('POST', `/api/v1/catalog/assets/${created.body.id}/confirm`, { key, body: { force: true } });
    expect({ status: withField.status, code: withField.body.error?.code }).toEqual({ status: 400, code: 'invalid_body' });
  });

  test("a version's file uploaded from a description without size, confirmed with {}", async () => {
    const { api } = sut;
    const { key } = await api.tenant();
    const entity = await api.request('POST', '/api/v1/catalog/entities', {
      key,
      body: { type: 'song', title: 'No size' },
    });
    expect(entity.status).toBe(201);
    const version = await api.request('POST', `/api/v1/catalog/entities/${entity.body.id}/versions`, {
      key,
      body: { source: { upload: { filename: 'cover.png', contentType: 'image/png' } }, label: 'Cover', versionType: 'cover_art' },
    });
    expect({ status: version.status, error: version.body.error }).toEqual({ status: 201, error: undefined });
    expect((await put(version.body.upload, bytes)).status).toBe(200);
    const confirmed = await api.request('POST', `/api/v1/catalog/assets/${version.body.asset.id}/confirm`, { key, body: {} });
    expect({ status: confirmed.status, error: confirmed.body.error }).toEqual({ status: 200, error: undefined });
    expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: bytes.length });
  });

  test('a declared size is still enforced', async () => {
    const { api } = sut;
    const { key } = await api.tenant();
    const created = await api.request('POST', '/api/v1/catalog/assets', {
      key,
      body: { retention: 'standalone', upload: { filename: 'cover.png', contentType: 'image/png', size: 1000 } },
    });
    expect(created.status).toBe(201);
    // Longer than declared: refused by the gateway (fs, 413) or by the object store's signature check (s3, 403).
    expect((await put(created.body.upload, bytes)).status).toBe(backend === 'fs' ? 413 : 403);
    const missing = await api.request('POST', `/api/v1/catalog/assets/${created.body.id}/confirm`, { key, body: {} });
    expect({ status: missing.status, code: missing.body.error?.code }).toEqual({ status: 409, code: 'upload_missing' });
    expect((await put(created.body.upload, bytes.subarray(0, 1000))).status).toBe(200);
    const confirmed = await api.request('POST', `/api/v1/catalog/assets/${created.body.id}/confirm`, { key, body: {} });
    expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: 1000 });
  });
});
