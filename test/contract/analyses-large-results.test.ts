import { createHash } from 'node:crypto';
import { WAVEFORM_LIMITS } from '@catalog/contracts';
import { eventually, sineWav } from '@catalog/testing';
import { apiClient, confirmUpload } from '../support/api.js';
import { s3BlobStore } from '../support/s3.js';
import { PATIENT_CALLS, startSystem, type RunningSystem } from '../support/system.js';

/**
 * Results of any size (decision 0113): a waveform at the largest options the API takes
 * (2,000 points a second, 16 bits, each channel) of a 95 s stereo file is about 2.3 MB of JSON,
 * more than a bus reply holds (NATS max_payload 1 MiB). Its owner reads it whole with
 * `GET /analyses/{jobId}` (streamed from the analysis service's listener), listings answer 200
 * with a summary of each result instead of the result, whatever the filter, and the library's
 * track of the entity shows the waveform (its projection reads the summaries).
 */
let api: ReturnType<typeof apiClient>;
let wav: Buffer;

const SECONDS = 95;
const SAMPLE_RATE = 44_100;
const MAX_OPTIONS = { waveform: { pixelsPerSecond: WAVEFORM_LIMITS.maxPixelsPerSecond, bits: 16, splitChannels: true } };

beforeAll(async () => {
  wav = await sineWav(SECONDS, { sampleRate: SAMPLE_RATE, channels: 2 });
});

/** An entity whose primary AUDIO version is the 95 s stereo file, ONLINE. */
async function entityWithAudio(key: string): Promise<{ entityId: string; assetId: string }> {
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Long stereo' } })).body;
  const checksum = `sha256:${createHash('sha256').update(wav).digest('hex')}`;
  const version = await api.request('POST', `/api/v1/catalog/entities/${entity.id}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'long.wav', contentType: 'audio/wav', size: wav.length, checksum } },
      label: 'Full',
      versionType: 'radio_edit',
      isPrimary: true,
    },
  });
  expect(version.status).toBe(201);
  const put = await fetch(version.body.upload.url, { method: 'PUT', headers: version.body.upload.headers, body: wav });
  expect(put.status).toBe(200);
  expect((await confirmUpload(api, key, version.body.asset.id)).status).toBe(200);
  return { entityId: entity.id, assetId: version.body.asset.id };
}

async function readsWholeAndListsSummaries(): Promise<void> {
  const { orgId, key } = await api.tenant({
    products: ['catalog', 'library'],
    permissions: ['catalog:api', 'catalog:analysis', 'library:api'],
  });
  expect((await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 10, reason: 'test' })).status).toBe(201);
  const { entityId, assetId } = await entityWithAudio(key);
  // The catalog learns that the file is ONLINE from the asset service's event: until then, 409.
  const created = await eventually(async () => {
    const answer = await api.request('POST', '/api/v1/catalog/analyses', {
      key,
      body: { type: 'waveform', source: { entityId }, options: MAX_OPTIONS },
    });
    return answer.status === 409 && ['source_not_online', 'no_primary_audio_version'].includes(answer.body.error.code) ? undefined : answer;
  }, 30_000);
  expect(created.status).toBe(202);
  const { jobId } = created.body;

  const read = await eventually(async () => {
    const response = await api.request('GET', `/api/v1/catalog/analyses/${jobId}`, { key });
    return response.status !== 200 || response.body.status === 'SUCCEEDED' || response.body.status === 'FAILED' ? response : undefined;
  }, 120_000);
  expect(read.status).toBe(200);
  const job = read.body;
  expect(job).toMatchObject({ jobId, type: 'waveform', status: 'SUCCEEDED', options: MAX_OPTIONS, creditsCharged: 2, error: null });
  expect(read.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Number(read.headers.get('content-length'))).toBeGreaterThan(1024 * 1024);
  // 2,000 points a second (22 samples each) would be 190,432 points: over WAVEFORM_LIMITS.maxLength,
  // so the points merge in pairs (decision 0084) and each holds 44 samples: 95,216 points, about
  // 1,000 a second of the 95 s, every one of them in the answer.
  const result = job.result;
  expect(result).toMatchObject({ version: 2, channels: 2, sample_rate: SAMPLE_RATE, bits: 16, samples_per_pixel: 44 });
  expect(result.length).toBe(Math.ceil((SECONDS * SAMPLE_RATE) / 44));
  expect(result.length).toBeLessThanOrEqual(WAVEFORM_LIMITS.maxLength);
  expect(result.data).toHaveLength(result.length * 2 * 2);
  expect(result.data.every((value: number) => Number.isInteger(value) && value >= -32_768 && value <= 32_767)).toBe(true);
  expect(Math.max(...result.data.slice(0, 10_000))).toBeGreaterThan(1_000); // the tone, not silence

  const summary = { version: 2, channels: 2, sample_rate: SAMPLE_RATE, samples_per_pixel: 44, bits: 16, length: result.length };
  for (const query of [`assetId=${assetId}`, `entityId=${entityId}`, 'limit=1', 'type=waveform&status=SUCCEEDED', '']) {
    const page = await api.request('GET', `/api/v1/catalog/analyses?${query}`, { key });
    expect({ query, status: page.status }).toEqual({ query, status: 200 });
    expect(page.body.analyses).toHaveLength(1);
    expect(page.body.analyses[0]).toMatchObject({ jobId, status: 'SUCCEEDED', summary });
    expect(page.body.analyses[0]).not.toHaveProperty('result');
    expect(Number(page.headers.get('content-length'))).toBeLessThan(4_096);
  }

  // The library's projection reads the summaries: the track shows the waveform (it never did: the
  // listing it reads answered 500 reply_too_large, and the projection retried forever).
  const track = await eventually(async () => {
    const response = await api.request('GET', `/api/v1/library/tracks/${entityId}`, { key });
    return response.status === 200 && response.body.analysis.waveform.available ? response.body : undefined;
  }, 90_000);
  expect(track.analysis.waveform).toMatchObject({ available: true, jobId, resultPath: `/api/v1/catalog/analyses/${jobId}` });
}

// The file's bytes in either blob store (the result is kept by the analysis service either way).
describe.each([
  ['fs', () => ({})],
  ['s3', s3BlobStore],
])('with the %s blob store', (_backend, blobEnv) => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ ...PATIENT_CALLS, ...blobEnv() });
    api = apiClient(system.baseUrl);
  });
  afterAll(async () => {
    await system?.stop();
  });

  test(
    'a 95 s stereo waveform at the largest options is read whole by GET /analyses/{jobId}; listings carry its summary',
    () => readsWholeAndListsSummaries(),
    300_000,
  );
});
