import { readdirSync } from 'node:fs';
import { eventually, sineWav } from '@catalog/testing';
import { confirmedVersion } from '../support/analyses.js';
import { s3BlobStore } from '../support/s3.js';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';

/**
 * Issue 24, item 8: the other contract tests keep files in a directory (`fs`); the Helm chart's
 * default is `s3`. Here the whole system keeps them on MinIO, and one scenario per path the bytes
 * take goes through it: a signed upload straight to S3, confirm (which reads the object back),
 * the gateway's download (whole and a range), an analysis worker reading the file, and the
 * library's track of an analysed version.
 */
const s3 = s3BlobStore();
const sut = useSystem({ env: { ...PATIENT_CALLS, ...s3, ANALYSIS_CONCURRENCY: '2' } });
let wav: Buffer;

beforeAll(async () => {
  wav = await sineWav(2, { sampleRate: 8_000 });
});

const endedJob = (key: string, jobId: string) =>
  eventually(async () => {
    const job = (await sut.api.request('GET', `/api/v1/catalog/analyses/${jobId}`, { key })).body;
    return job.status === 'SUCCEEDED' || job.status === 'FAILED' ? job : undefined;
  }, 60_000);

test('on S3: a standalone file uploaded by its signed URL, confirmed, downloaded whole and by range, and analysed', async () => {
  const { api } = sut;
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  const created = await api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length } },
  });
  expect(created.status).toBe(201);
  // The upload goes to MinIO itself, not through the gateway.
  expect(new URL(created.body.upload.url).origin).toBe(new URL(s3.S3_ENDPOINT!).origin);
  const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav });
  expect(put.status).toBe(200);
  const confirmed = await api.request('POST', `/api/v1/catalog/assets/${created.body.id}/confirm`, { key });
  expect(confirmed.status).toBe(200);
  expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: wav.length, durationMs: 2000 });

  const download = (headers: Record<string, string> = {}) =>
    fetch(`${sut.system.baseUrl}/api/v1/catalog/assets/${created.body.id}/download`, {
      headers: { authorization: `Bearer ${key}`, ...headers },
    });
  const whole = await download();
  expect(whole.status).toBe(200);
  expect(Buffer.from(await whole.arrayBuffer()).equals(wav)).toBe(true);
  const part = await download({ range: 'bytes=100-199' });
  expect({ status: part.status, range: part.headers.get('content-range') }).toEqual({ status: 206, range: `bytes 100-199/${wav.length}` });
  expect(Buffer.from(await part.arrayBuffer()).equals(wav.subarray(100, 200))).toBe(true);

  expect((await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 2, reason: 'test' })).status).toBe(201);
  const analysis = await api.request('POST', '/api/v1/catalog/analyses', {
    key,
    body: { type: 'loudness', source: { assetId: created.body.id } },
  });
  expect(analysis.status).toBe(202);
  const job = await endedJob(key, analysis.body.jobId);
  expect(job).toMatchObject({ status: 'SUCCEEDED', error: null });
  expect(job.result.integratedLufs).toEqual(expect.any(Number));
  // Nothing went to the directory store.
  expect(readdirSync(sut.system.env.BLOB_DIR!, { recursive: true })).toEqual([]);
}, 120_000);

test("on S3: a song's audio version uploaded and confirmed is analysed automatically and its track shows the facts", async () => {
  const { api } = sut;
  const { orgId, key } = await api.tenant({
    products: ['catalog', 'library'],
    permissions: ['catalog:api', 'catalog:analysis', 'library:api'],
  });
  expect((await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 2, reason: 'test' })).status).toBe(201);
  expect((await api.request('PUT', '/api/v1/catalog/entity-types/song', { key, body: { automaticAnalyses: ['loudness'] } })).status).toBe(
    200,
  );
  const { entityId, versionId, assetId } = await confirmedVersion(api, wav, { key, entityType: 'song', dmrn: 'DM-S3-1' });

  const track = await eventually(async () => {
    const read = await api.request('GET', `/api/v1/library/tracks/${entityId}`, { key });
    return read.status === 200 && read.body.analysis.loudness ? read.body : undefined;
  }, 90_000);
  expect(track.audioVersion).toMatchObject({ id: versionId });
  const job = await endedJob(key, track.analysis.loudness.jobId);
  expect(job).toMatchObject({ type: 'loudness', status: 'SUCCEEDED', resolved: { assetId, entityId, versionId } });
  expect(track.analysis.loudness.integratedLufs).toBe(job.result.integratedLufs);
  expect((await api.request('GET', '/api/v1/catalog/credits', { key })).body).toMatchObject({ balance: 0, reserved: 0 });
}, 120_000);
