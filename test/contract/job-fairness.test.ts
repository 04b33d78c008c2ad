import type { AnalysisJob, Job } from '@catalog/contracts';
import { eventually, sineWav, type ApiResponse } from '@catalog/testing';
import { analyzeFile, type AnalysisServiceOptions } from '@catalog/analysis';
import { confirmUpload, expectError } from '../support/api.js';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';

/**
 * Imports and analyses are run fairly between tenants (decision 0150): with one tenant's 20
 * imports and 100 analyses queued (the most it may have: one more is refused with 429 and
 * Retry-After), another tenant's single import and single analysis run after at most one of the
 * first tenant's, long before its backlog drains. One job of each kind runs at a time, so the
 * order is the scheduler's alone; each of the first tenant's analyses takes a while (a paced
 * engine), so its backlog stays long while the other tenant's job runs.
 */
const IMPORTS = 20;
const ANALYSES = 100;
const ROWS_PER_IMPORT = 1_000;

const paced: AnalysisServiceOptions['analyze'] = async (file, types, options) => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  return analyzeFile(file, types, options);
};

const sut = useSystem({
  env: {
    ...PATIENT_CALLS,
    ANALYSIS_CONCURRENCY: '1',
    CATALOG_IMPORT_CONCURRENCY: '1',
    CATALOG_IMPORT_CHUNK_ROWS: '100',
  },
  analysis: { analyze: paced },
});

const permissions = ['catalog:api', 'catalog:analysis'];

async function upload(key: string, bytes: Buffer, filename: string, contentType: string): Promise<string> {
  const asset = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename, contentType, size: bytes.length } },
  });
  expect(asset.status).toBe(201);
  expect((await fetch(asset.body.upload.url, { method: 'PUT', headers: asset.body.upload.headers, body: bytes })).status).toBe(200);
  expect((await confirmUpload(sut.api, key, asset.body.assetId)).body.status).toBe('ONLINE');
  return asset.body.assetId as string;
}

const importFile = (key: string, rows: string[]) =>
  upload(key, Buffer.from(`${rows.join('\n')}\n`, 'utf8'), 'library.jsonl', 'application/x-ndjson');

const startImport = (key: string, assetId: string, idempotencyKey?: string): Promise<ApiResponse> =>
  sut.api.request('POST', '/api/v1/catalog/jobs', {
    key,
    body: { type: 'import', source: { assetId } },
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });

const importsOf = async (key: string): Promise<Job[]> =>
  (await sut.api.request<{ jobs: Job[] }>('GET', '/api/v1/catalog/jobs?limit=100', { key })).body.jobs;

/**
 * Starts jobs until one is refused (the tenant then has the most it may have queued or running;
 * some of the first may have ended meanwhile, so more than the cap may have been taken): the refusal.
 */
async function fill(cap: number, start: (n: number) => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let n = 0; n < 3 * cap; n += 1) {
    const answer = await start(n);
    if (answer.status !== 202) return answer;
  }
  throw new Error(`${3 * cap} jobs were taken: no cap of ${cap}`);
}

const startAnalysis = (key: string, assetId: string): Promise<ApiResponse> =>
  sut.api.request('POST', '/api/v1/catalog/analyses', { key, body: { type: 'technical', source: { assetId } } });

test("another tenant's import runs long before the 20 imports queued before it have run; a 21st import is refused with 429", async () => {
  const a = await sut.api.tenant({ permissions });
  const b = await sut.api.tenant({ permissions });
  const files: string[] = [];
  for (let n = 0; n < IMPORTS; n += 1) {
    files.push(
      await importFile(
        a.key,
        Array.from({ length: ROWS_PER_IMPORT }, (_, i) => JSON.stringify({ type: 'song', title: `File ${n} song ${i}` })),
      ),
    );
  }
  const single = await importFile(b.key, [JSON.stringify({ type: 'song', title: 'The one song of B' })]);

  let last = { assetId: '', idempotencyKey: '' };
  const refused = await fill(IMPORTS, (n) => {
    last = { assetId: files[n % IMPORTS]!, idempotencyKey: `import-${n}` };
    return startImport(a.key, last.assetId, last.idempotencyKey);
  });
  expectError(refused, 429, 'too_many_queued_jobs');
  expect(refused.headers.get('retry-after')).toBe('30');
  expect(refused.body.error.details).toMatchObject({ limit: IMPORTS });

  const ofB = await startImport(b.key, single);
  expect(ofB.status).toBe(202);
  await eventually(
    async () => {
      const job = await sut.api.request<Job>('GET', `/api/v1/catalog/jobs/${ofB.body.jobId}`, { key: b.key });
      return job.body.state === 'succeeded' ? true : undefined;
    },
    120_000,
    200,
  );
  // B's import ran after at most one of A's: most of A's are still waiting (a first-come queue ran all of them first).
  const unfinished = (await importsOf(a.key)).filter((job) => job.state === 'queued' || job.state === 'running');
  expect(unfinished.length).toBeGreaterThanOrEqual(IMPORTS / 2);

  // A's backlog runs to its end; the refused request, retried with its Idempotency-Key, is taken now (a 429 is not kept).
  await eventually(async () => ((await importsOf(a.key)).every((job) => job.state === 'succeeded') ? true : undefined), 300_000, 500);
  expect((await startImport(a.key, last.assetId, last.idempotencyKey)).status).toBe(202);
}, 420_000);

test("another tenant's analysis runs long before the 100 analyses queued before it have run; a 101st is refused with 429", async () => {
  const wav = await sineWav(1, { sampleRate: 8_000 });
  const a = await sut.api.tenant({ permissions });
  const b = await sut.api.tenant({ permissions });
  await sut.api.admin('POST', `/admin/v1/organizations/${a.orgId}/credits`, { amount: 2 * ANALYSES, reason: 'test' });
  await sut.api.admin('POST', `/admin/v1/organizations/${b.orgId}/credits`, { amount: 5, reason: 'test' });
  const toneOfA = await upload(a.key, wav, 'tone.wav', 'audio/wav');
  const toneOfB = await upload(b.key, wav, 'tone.wav', 'audio/wav');

  const refused = await fill(ANALYSES, () => startAnalysis(a.key, toneOfA));
  expectError(refused, 429, 'too_many_queued_jobs');
  expect(refused.headers.get('retry-after')).toBe('10');
  expect(refused.body.error.details).toMatchObject({ limit: ANALYSES });

  const ofB = await startAnalysis(b.key, toneOfB);
  expect(ofB.status).toBe(202);
  await eventually(
    async () => {
      const job = await sut.api.request<AnalysisJob>('GET', `/api/v1/catalog/analyses/${ofB.body.jobId}`, { key: b.key });
      return job.body.status === 'SUCCEEDED' ? true : undefined;
    },
    120_000,
    200,
  );
  // B's analysis ran after at most one of A's: most of A's are still queued (a first-come queue ran all of them first).
  const queued = await sut.api.request<{ analyses: AnalysisJob[] }>('GET', '/api/v1/catalog/analyses?status=QUEUED&limit=100', {
    key: a.key,
  });
  expect(queued.body.analyses.length).toBeGreaterThanOrEqual(ANALYSES / 2);
}, 300_000);
