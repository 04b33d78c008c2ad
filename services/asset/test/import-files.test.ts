import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAsset, download, put, startStack, tempDir, type Stack } from './support.js';

/** The files of import jobs (decision 0134): JSON Lines and CSV, kind DATA, standalone only. */
describe('import files', () => {
  let stack: Stack;
  let key: string;
  const dir = tempDir();

  beforeAll(async () => {
    stack = await startStack('fs');
    key = (await stack.api.tenant()).key;
  });
  afterAll(async () => {
    await stack?.stop();
    dir.remove();
  });

  it('takes JSON Lines and CSV as standalone DATA files: uploaded, confirmed and downloaded as sent', async () => {
    for (const [contentType, text] of [
      ['application/x-ndjson', '{"type":"song","title":"A"}\n'],
      ['TEXT/CSV', 'type,title\nsong,A\n'],
    ] as const) {
      const path = join(dir.dir, 'file');
      writeFileSync(path, text);
      const asset = await createAsset(stack.api, key, { filename: 'import', contentType, size: text.length });
      expect(asset).toMatchObject({ kind: 'DATA', retention: 'standalone', contentType: contentType.toLowerCase() });
      expect((await put(asset.upload.url, asset.upload.headers, { path })).status).toBe(200);
      const confirmed = await stack.api.request('POST', `/api/v1/catalog/assets/${asset.assetId}/confirm`, { key });
      expect(confirmed.body).toMatchObject({ status: 'ONLINE', kind: 'DATA', size: text.length, durationMs: null });
      const got = await download(`${stack.baseUrl}/api/v1/catalog/assets/${asset.assetId}/download`, { authorization: `Bearer ${key}` });
      expect(got).toMatchObject({ status: 200, text });
    }
  });

  it('refuses them as attached files (the files of versions) with 415', async () => {
    for (const contentType of ['application/x-ndjson', 'text/csv']) {
      const answer = await stack.api.request('POST', '/api/v1/catalog/assets', {
        key,
        body: { retention: 'attached', upload: { filename: 'import', contentType } },
      });
      expect(answer.status).toBe(415);
      expect(answer.body.error).toMatchObject({ code: 'unsupported_media_type', details: { contentType, retention: 'attached' } });
    }
  });
});
