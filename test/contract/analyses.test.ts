import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { demoSong, eventually, renderSong, sineWav } from '@catalog/testing';
import { apiClient, confirmUpload, expectError } from '../support/api.js';
import { PATIENT_CALLS, startSystem, type RunningSystem } from '../support/system.js';

/**
 * Analyses and credits through the gateway: rule 3 of part 4 (a standalone file
 * uploaded, confirmed, analysed and polled), the analysis permission, credits that concurrent
 * requests can never overdraw, Idempotency-Key, source errors that take no credit, and the
 * events of each transition in the feed.
 */
let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let wav: Buffer;

const ANALYST = ['catalog:api', 'catalog:analysis'];

beforeAll(async () => {
  // 50 requests at once on a loaded machine: every one must be answered (202 or 402), never time out.
  system = await startSystem({ ...PATIENT_CALLS, ANALYSIS_CONCURRENCY: '2' });
  api = apiClient(system.baseUrl);
  wav = await sineWav(2, { sampleRate: 8_000 });
});
afterAll(async () => {
  await system.stop();
});

async function upload(key: string, file: { bytes: Buffer; filename: string; contentType: string }, confirm = true): Promise<string> {
  const created = await api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: file.filename, contentType: file.contentType, size: file.bytes.length } },
  });
  expect(created.status).toBe(201);
  const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: file.bytes });
  expect(put.status).toBe(200);
  if (confirm) expect((await confirmUpload(api, key, created.body.id)).status).toBe(200);
  return created.body.id;
}

const uploadTone = (key: string) => upload(key, { bytes: wav, filename: 'tone.wav', contentType: 'audio/wav' });

async function grant(orgId: string, amount: number) {
  const granted = await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount, reason: 'test' });
  expect(granted.status).toBe(201);
  return granted.body;
}

const credits = async (key: string) => (await api.request('GET', '/api/v1/catalog/credits', { key })).body;
const analyse = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  api.request('POST', '/api/v1/catalog/analyses', { key, body, headers });
const untilEnded = (key: string, jobId: string) =>
  eventually(async () => {
    const job = (await api.request('GET', `/api/v1/catalog/analyses/${jobId}`, { key })).body;
    return job.status === 'SUCCEEDED' || job.status === 'FAILED' ? job : undefined;
  }, 60_000);

test('rule 3 of part 4: a standalone file uploaded, confirmed, analysed and polled; charged once, events in the feed', async () => {
  const { orgId, key } = await api.tenant({ permissions: ANALYST });
  const assetId = await uploadTone(key);
  expect(await grant(orgId, 5)).toMatchObject({
    balance: 5,
    reserved: 0,
    entry: { kind: 'grant', amount: 5, balanceAfter: 5, reason: 'test' },
  });

  const created = await analyse(key, { type: 'loudness', source: { assetId } });
  expect(created.status).toBe(202);
  expect(created.body).toMatchObject({
    type: 'loudness',
    status: 'QUEUED',
    source: { assetId },
    resolved: { assetId, entityId: null, versionId: null },
    creditsCharged: 2,
    result: null,
    error: null,
  });
  const job = await untilEnded(key, created.body.jobId);
  expect(job).toMatchObject({
    status: 'SUCCEEDED',
    creditsCharged: 2,
    error: null,
    startedAt: expect.any(String),
    finishedAt: expect.any(String),
  });
  expect(job.result.integratedLufs).toEqual(expect.any(Number));
  expect(await credits(key)).toMatchObject({ balance: 3, reserved: 0, costs: { loudness: 2, technical: 1 } });

  const ledger = await api.admin('GET', `/admin/v1/organizations/${orgId}/credits`);
  expect(ledger.status).toBe(200);
  expect(ledger.body.entries.map((e: { kind: string; amount: number }) => [e.kind, e.amount])).toEqual([
    ['settle', 0],
    ['reserve', -2],
    ['grant', 5],
  ]);

  const listed = await api.request('GET', `/api/v1/catalog/analyses?assetId=${assetId}`, { key });
  // A listing carries a summary of each result (a loudness result is small: all of it), not the result (decision 0113).
  expect(listed.body).toMatchObject({
    analyses: [{ jobId: job.jobId, status: 'SUCCEEDED', summary: job.result }],
    nextCursor: null,
    hasMore: false,
  });
  expect(listed.body.analyses[0]).not.toHaveProperty('result');

  const types = ['analysis.queued', 'analysis.started', 'analysis.succeeded'];
  const feed = await eventually(async () => {
    const page = await api.request('GET', `/api/v1/catalog/events?types=${types.join(',')}`, { key });
    return page.body.events?.length === 3 ? page.body.events : undefined;
  }, 30_000);
  expect(feed.map((e: { type: string }) => e.type)).toEqual(types);
  expect(feed[2]).toMatchObject({
    resourceKind: 'analysis',
    resourceId: job.jobId,
    dmrn: null,
    data: { jobId: job.jobId, type: 'loudness', assetId, entityId: null, versionId: null, status: 'SUCCEEDED', credits: 2 },
  });
});

test('50 concurrent requests with credits for 10: exactly 10 jobs, 40 × 402 with balance and cost, balance 0', async () => {
  const { orgId, key } = await api.tenant({ permissions: ANALYST });
  const assetId = await uploadTone(key);
  await grant(orgId, 10);
  const answers = await Promise.all(Array.from({ length: 50 }, () => analyse(key, { type: 'technical', source: { assetId } })));
  const accepted = answers.filter((a) => a.status === 202);
  const refused = answers.filter((a) => a.status === 402);
  expect({ accepted: accepted.length, refused: refused.length }).toEqual({ accepted: 10, refused: 40 });
  for (const answer of refused) {
    expectError(answer, 402, 'insufficient_credits');
    expect(answer.body.error.details).toEqual({ balance: 0, cost: 1 });
  }
  expect((await credits(key)).balance).toBe(0);
  const jobs = await Promise.all(accepted.map((a) => untilEnded(key, a.body.jobId)));
  expect(jobs.every((j) => j.status === 'SUCCEEDED' && j.creditsCharged === 1)).toBe(true);
  expect(await credits(key)).toMatchObject({ balance: 0, reserved: 0 });
  const all = await api.request('GET', `/api/v1/catalog/analyses?assetId=${assetId}&limit=200`, { key });
  expect(all.body.analyses).toHaveLength(10);
});

test('Idempotency-Key: a retry answers the same job and charges once; the key with another request is 409', async () => {
  const { orgId, key } = await api.tenant({ permissions: ANALYST });
  const assetId = await uploadTone(key);
  await grant(orgId, 10);
  const body = { type: 'technical', source: { assetId } };
  const [first, second] = await Promise.all([
    analyse(key, body, { 'Idempotency-Key': 'order-42' }),
    analyse(key, body, { 'Idempotency-Key': 'order-42' }),
  ]);
  expect([first.status, second.status]).toEqual([202, 202]);
  expect(second.body.jobId).toBe(first.body.jobId);
  expect((await credits(key)).balance).toBe(9);
  expectError(await analyse(key, { ...body, type: 'tempo' }, { 'Idempotency-Key': 'order-42' }), 409, 'idempotency_key_reused');
  expectError(await analyse(key, body, { 'Idempotency-Key': 'bad key' }), 400, 'invalid_header');
  expect((await credits(key)).balance).toBe(9);
});

test('the analysis permission: 403 with only catalog:api; the balance needs catalog:api only', async () => {
  const { orgId, key } = await api.tenant();
  const assetId = await uploadTone(key);
  await grant(orgId, 10);
  expectError(await analyse(key, { type: 'technical', source: { assetId } }), 403, 'forbidden');
  expect((await api.request('GET', '/api/v1/catalog/analyses?assetId=' + assetId, { key })).status).toBe(403);
  expect(await credits(key)).toMatchObject({ balance: 10, reserved: 0 });
});

test('sources that cannot be analysed: 4xx, no job, no credit taken; 402 with no credits', async () => {
  const { orgId, key } = await api.tenant({ permissions: ANALYST });
  const other = await api.tenant({ permissions: ANALYST, name: 'Other Radio' });
  const foreign = await uploadTone(other.key);
  const png = await upload(key, { bytes: Buffer.alloc(64, 5), filename: 'cover.png', contentType: 'image/png' });
  const pending = await upload(key, { bytes: wav, filename: 'late.wav', contentType: 'audio/wav' }, false);
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'No audio' } })).body;
  const tone = await uploadTone(key);
  expectError(await analyse(key, { type: 'technical', source: { assetId: tone } }), 402, 'insufficient_credits');
  await grant(orgId, 10);

  expectError(await analyse(key, { type: 'technical', source: { assetId: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
  expectError(await analyse(key, { type: 'technical', source: { assetId: foreign } }), 404, 'not_found');
  expectError(await analyse(key, { type: 'technical', source: { assetId: png } }), 415, 'source_not_audio');
  expectError(await analyse(key, { type: 'technical', source: { assetId: pending } }), 409, 'source_not_online');
  expectError(await analyse(key, { type: 'technical', source: { entityId: entity.id } }), 409, 'no_primary_audio_version');
  expectError(await analyse(key, { type: 'technical', source: { versionId: entity.id } }), 404, 'not_found');
  expectError(await analyse(key, { type: 'technical', source: { assetId: tone, entityId: entity.id } }), 400, 'invalid_body');
  expect(await credits(key)).toMatchObject({ balance: 10, reserved: 0 });
  expect((await api.request('GET', `/api/v1/catalog/analyses?entityId=${entity.id}`, { key })).body.analyses).toEqual([]);
  expectError(await api.request('GET', `/api/v1/catalog/analyses/${entity.id}`, { key }), 404, 'not_found');
});

test('admin credits: unknown organisation 404, a bad grant 400, an unauthenticated call 401', async () => {
  expectError(
    await api.admin('POST', '/admin/v1/organizations/00000000-0000-4000-8000-000000000000/credits', { amount: 1, reason: 'x' }),
    404,
    'not_found',
  );
  const { orgId } = await api.tenant();
  expectError(await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 0, reason: 'x' }), 400, 'invalid_body');
  expectError(await api.request('GET', `/admin/v1/organizations/${orgId}/credits`), 401, 'unauthorized');
});

test('fingerprint: the same music re-encoded to MP3 is listed as a duplicate of the earlier file; other music is not', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'analysis-fingerprints-'));
  try {
    const [original, other, mp3] = ['original.wav', 'other.wav', 'original.mp3'].map((name) => join(dir, name)) as [string, string, string];
    await Promise.all([
      renderSong({ bpm: 118, notes: demoSong(15, 9, 'minor'), programs: { 1: 33 } }, original, { effects: true }),
      renderSong({ bpm: 96, notes: demoSong(12, 2, 'major'), programs: { 0: 4, 1: 38 } }, other, { effects: true }),
    ]);
    await promisify(execFile)('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', original, '-c:a', 'libmp3lame', '-q:a', '4', mp3]);
    const { orgId, key } = await api.tenant({ permissions: ANALYST });
    await grant(orgId, 10);
    const fingerprint = async (path: string, contentType: string) => {
      const assetId = await upload(key, { bytes: await readFile(path), filename: path.split('/').pop()!, contentType });
      const created = await analyse(key, { type: 'fingerprint', source: { assetId } });
      expect(created.status).toBe(202);
      const job = await untilEnded(key, created.body.jobId);
      expect(job.status).toBe('SUCCEEDED');
      return { assetId, duplicates: job.result.duplicates as Array<{ assetId: string; entityId: string | null; similarity: number }> };
    };
    const first = await fingerprint(original, 'audio/wav');
    expect(first.duplicates).toEqual([]);
    const reencoded = await fingerprint(mp3, 'audio/mpeg');
    expect(reencoded.duplicates).toEqual([
      { assetId: first.assetId, entityId: null, similarity: expect.any(Number), offsetSeconds: expect.any(Number) },
    ]);
    expect(reencoded.duplicates[0]!.similarity).toBeGreaterThanOrEqual(0.5);
    expect((await fingerprint(other, 'audio/wav')).duplicates).toEqual([]);
    // Another tenant's files are never compared.
    const stranger = await api.tenant({ permissions: ANALYST, name: 'Stranger Radio' });
    await grant(stranger.orgId, 10);
    const strangerAsset = await upload(stranger.key, { bytes: await readFile(mp3), filename: 'copy.mp3', contentType: 'audio/mpeg' });
    const strangers = await analyse(stranger.key, { type: 'fingerprint', source: { assetId: strangerAsset } });
    expect((await untilEnded(stranger.key, strangers.body.jobId)).result.duplicates).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
