import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addVersionFromFile,
  analyseFile,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createCatalogClient,
  NotFoundError,
  PermissionError,
  unwrap,
  uploadAsset,
  waitForAnalysis,
  requestAnalysis,
  type UploadProgress,
} from '@catalog/sdk';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';
import { EVERYTHING, toneFolder } from './helpers.js';

/**
 * The SDK's helpers against the running system: the three-step upload (create with size and
 * sha256, PUT with progress, confirm), analyses requested and waited for with typed results,
 * typed errors by status and code, an Idempotency-Key on every create.
 */
const sut = useSystem({ env: { ...PATIENT_CALLS, ANALYSIS_CONCURRENCY: '1' } });
let files: Awaited<ReturnType<typeof toneFolder>>;
beforeAll(async () => {
  files = await toneFolder();
});
afterAll(() => files.remove());

async function analystClient(options: { fetch?: (request: Request) => Promise<Response> } = {}) {
  const { orgId, key } = await sut.api.tenant(EVERYTHING);
  expect((await sut.api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 20, reason: 'test' })).status).toBe(201);
  return createCatalogClient({ baseUrl: sut.system.baseUrl, apiKey: key, ...(options.fetch ? { fetch: options.fetch } : {}) });
}

test('a version from a file path: created with size and sha256, uploaded with progress, confirmed ONLINE; every create carried an Idempotency-Key', async () => {
  const keys: Array<[string, string | null]> = [];
  const client = await analystClient({
    fetch: (request) => {
      if (request.method === 'POST') keys.push([new URL(request.url).pathname, request.headers.get('idempotency-key')]);
      return fetch(request);
    },
  });
  const entity = await unwrap(client.api.POST('/api/v1/catalog/entities', { body: { type: 'song', title: 'Uploaded' } }));
  const progress: UploadProgress[] = [];
  const { version, asset } = await addVersionFromFile(client, entity.id, files.tone, {
    label: 'Radio edit',
    versionType: 'radio_edit',
    onProgress: (p) => progress.push(p),
  });
  const bytes = await readFile(files.tone);
  expect(asset).toMatchObject({
    id: version.asset.id,
    status: 'ONLINE',
    size: bytes.length,
    checksum: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
  });
  expect(progress.at(-1)).toEqual({ sentBytes: bytes.length, totalBytes: bytes.length });
  expect(progress.map((p) => p.sentBytes)).toEqual([...progress.map((p) => p.sentBytes)].sort((a, b) => a - b));
  const listed = await unwrap(client.api.GET('/api/v1/catalog/entities/{id}/versions', { params: { path: { id: entity.id } } }));
  expect(JSON.stringify(listed)).toContain(version.id);

  const creates = keys.filter(([path]) => !path.endsWith('/confirm'));
  expect(creates.map(([path]) => path)).toEqual(['/api/v1/catalog/entities', `/api/v1/catalog/entities/${entity.id}/versions`]);
  for (const [, key] of creates) expect(key).toMatch(/^[0-9a-f-]{36}$/);
});

test('a standalone asset from a stream, analysed: the loudness result typed, the credits charged', async () => {
  const client = await analystClient();
  const asset = await uploadAsset(client, { stream: createReadStream(files.tone), filename: 'stream.wav' });
  expect(asset).toMatchObject({ status: 'ONLINE', retention: 'standalone', contentType: 'audio/wav' });
  const queued = await requestAnalysis(client, 'loudness', { assetId: asset.id });
  expect(queued).toMatchObject({ type: 'loudness', status: 'QUEUED' });
  const job = await waitForAnalysis<'loudness'>(client, queued.jobId, { timeoutMs: 120_000 });
  expect(job.status).toBe('SUCCEEDED');
  const lufs: number | null = job.result.integratedLufs;
  expect(typeof lufs).toBe('number');
}, 180_000);

test('analyseFile uploads, requests and waits; a file that is not audio is a ConflictError at its confirmation', async () => {
  const client = await analystClient();
  const technical = await analyseFile(client, 'technical', files.tone, { timeoutMs: 120_000 });
  expect(technical.result).toMatchObject({ sampleRate: 8_000, channels: 1, container: 'wav' });
  const notAudio = join(files.directory, 'not-audio.wav');
  await writeFile(notAudio, Buffer.alloc(4096, 7));
  const refused = await analyseFile(client, 'loudness', notAudio, { timeoutMs: 120_000 }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ConflictError);
  expect(refused).toMatchObject({ status: 409, code: 'asset_failed', details: { reason: 'unreadable_audio' } });
}, 180_000);

test('typed errors: 401, 403, 404 and 400 by class, with the body code and request id', async () => {
  const unknownKey = createCatalogClient({ baseUrl: sut.system.baseUrl, apiKey: 'sk_not_a_key' });
  await expect(unwrap(unknownKey.api.GET('/api/v1/catalog/entities'))).rejects.toBeInstanceOf(AuthenticationError);

  const { key } = await sut.api.tenant();
  const client = createCatalogClient({ baseUrl: sut.system.baseUrl, apiKey: key });
  const forbidden = await requestAnalysis(client, 'loudness', { assetId: '0190a1b2-0000-7000-8000-000000000001' }).catch((e: unknown) => e);
  expect(forbidden).toBeInstanceOf(PermissionError);
  expect(forbidden).toMatchObject({ status: 403, code: 'forbidden', requestId: expect.any(String) });

  const missing = await unwrap(
    client.api.GET('/api/v1/catalog/entities/{id}', { params: { path: { id: '0190a1b2-0000-7000-8000-000000000001' } } }),
  ).catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(NotFoundError);
  expect(missing).toMatchObject({ status: 404, code: 'not_found' });

  const bad = await unwrap(client.api.GET('/api/v1/catalog/events', { params: { query: { types: 'no.such.type' } } })).catch(
    (e: unknown) => e,
  );
  expect(bad).toBeInstanceOf(BadRequestError);
  expect(bad).toMatchObject({ status: 400, code: 'unknown_event_type' });
});
