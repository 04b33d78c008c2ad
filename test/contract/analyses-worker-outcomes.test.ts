import pg from 'pg';
import { readConfig } from '@catalog/platform';
import { eventually, sineWav, testLogger } from '@catalog/testing';
import { analysisConfig, analyzeFile, startAnalysisService, type AnalysisServiceOptions } from '@catalog/analysis';
import { confirmedVersion } from '../support/analyses.js';
import { apiClient } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * What a worker does after an analysis (decision 0088):
 * - cue points become a version's markers even when the catalog did not answer as the job
 *   succeeded: the job keeps no answer, a periodic task asks again, and the markers appear once
 *   the catalog is back, without another request; markers set by hand still win, and a version
 *   deleted meanwhile (404) ends the tries;
 * - an analyzer's result that does not match its type's schema is never stored: the job fails
 *   `invalid_result`, naming the field, and its credits are refunded.
 * The system runs no worker (ANALYSIS_CONCURRENCY=0); the test starts one analysis service with a
 * worker when the jobs are queued, with an engine whose `key` results carry an impossible Camelot
 * code (the rest is `analyzeFile`'s).
 */
const RETRIES = {
  ANALYSIS_MARKERS_RETRY_INTERVAL_MS: '200',
  ANALYSIS_MARKERS_RETRY_MIN_MS: '100',
  ANALYSIS_MARKERS_RETRY_MAX_MS: '400',
  ANALYSIS_MARKERS_MAX_ATTEMPTS: '1000',
  // While the catalog is stopped a call fails at once (no responders); once it is back, a call on a
  // busy machine may take seconds, and one that times out is only tried again later.
  ANALYSIS_RPC_TIMEOUT_MS: '15000',
};
let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let db: pg.Client;
let wav: Buffer;
let worker: Awaited<ReturnType<typeof startAnalysisService>> | null = null;

const badKeys: AnalysisServiceOptions['analyze'] = async (file, types, options) => {
  const results = await analyzeFile(file, types, options);
  if ('key' in results) (results as { key: { camelot: string | null } }).key.camelot = '13C';
  return results;
};

beforeAll(async () => {
  system = await startSystem({ ANALYSIS_CONCURRENCY: '0', ...RETRIES });
  api = apiClient(system.baseUrl);
  db = new pg.Client({ connectionString: system.database.url });
  await db.connect();
  wav = await sineWav(3, { sampleRate: 8_000 });
});
afterAll(async () => {
  await worker?.stop();
  await db?.end();
  await system?.stop();
});

async function startWorker(): Promise<void> {
  const env = { ...system.env, ANALYSIS_HTTP_PORT: '0', ANALYSIS_CONCURRENCY: '1' };
  worker ??= await startAnalysisService(readConfig(analysisConfig, env), { logger: testLogger('worker'), analyze: badKeys });
}

const jobsOf = (key: string, entityId: string, status: string) =>
  eventually(async () => {
    const jobs: any[] = (await api.request('GET', `/api/v1/catalog/analyses?entityId=${entityId}`, { key })).body.analyses ?? [];
    return jobs.length === 1 && jobs[0].status === status ? jobs[0] : undefined;
  }, 60_000);

const markersRow = async (jobId: string) =>
  (await db.query('select markers_outcome, markers_attempts from analysis.jobs where id = $1', [jobId])).rows[0];

test('cue points the catalog could not take when the job succeeded become the markers once it is back; hand-set markers win, a deleted version ends the tries', async () => {
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 10, reason: 'test' });
  await api.request('PUT', '/api/v1/catalog/entity-types/song', {
    key,
    body: { automaticAnalyses: ['cue_points'], cuePointMarkers: true },
  });
  const auto = await confirmedVersion(api, wav, { key, entityType: 'song', dmrn: 'DM-MARK-1' });
  const byHand = await confirmedVersion(api, wav, { key, entityType: 'song', dmrn: 'DM-MARK-2' });
  const handSet = [{ type: 'cue_in', positionMs: 250 }];
  const put = await api.request('PUT', `/api/v1/catalog/entities/${byHand.entityId}/versions/${byHand.versionId}/markers`, {
    key,
    body: { markers: handSet },
  });
  expect(put.body.markers).toEqual(handSet);
  const gone = await confirmedVersion(api, wav, { key, entityType: 'song', dmrn: 'DM-MARK-3' });
  const queued = [await jobsOf(key, auto.entityId, 'QUEUED'), await jobsOf(key, byHand.entityId, 'QUEUED')];
  const goneJob = await jobsOf(key, gone.entityId, 'QUEUED');
  // Its file stays (released, standalone again): the job runs, and the catalog answers 404 for the version.
  expect((await api.request('DELETE', `/api/v1/catalog/entities/${gone.entityId}/versions/${gone.versionId}`, { key })).status).toBe(204);

  // The catalog stops before any worker runs: the jobs succeed while nothing answers for it.
  await system.stopCatalog();
  await startWorker();
  for (const [job, version] of [
    [queued[0], auto],
    [queued[1], byHand],
  ] as const) {
    expect(await jobsOf(key, version.entityId, 'SUCCEEDED')).toMatchObject({ jobId: job.jobId, type: 'cue_points' });
  }
  for (const job of queued) {
    const row = await eventually(async () => {
      const current = await markersRow(job.jobId);
      return current.markers_attempts >= 2 ? current : undefined;
    }, 90_000);
    expect(row.markers_outcome).toBeNull();
  }
  const stored = await db.query('select markers from catalog.versions where id = $1', [auto.versionId]);
  expect(stored.rows[0].markers).toEqual([]);

  // The catalog is back: the retries write the cue points, with no other request.
  await system.startCatalog();
  const markers = await eventually(async () => {
    const version = await api.request('GET', `/api/v1/catalog/entities/${auto.entityId}/versions/${auto.versionId}`, { key });
    return version.body.markers?.length > 0 ? version.body.markers : undefined;
  }, 90_000);
  expect(markers.map((m: { type: string }) => m.type)).toEqual(expect.arrayContaining(['cue_in', 'cue_out']));
  expect((await markersRow(queued[0].jobId)).markers_outcome).toBe('applied');
  await eventually(async () => ((await markersRow(queued[1].jobId)).markers_outcome === 'set_by_hand' ? true : undefined), 90_000);
  const kept = await api.request('GET', `/api/v1/catalog/entities/${byHand.entityId}/versions/${byHand.versionId}`, { key });
  expect(kept.body.markers).toEqual(handSet);
  // A definite refusal (4xx) ends the tries too.
  const refused = await eventually(async () => {
    const row = (await db.query('select markers_outcome, markers_error from analysis.jobs where id = $1', [goneJob.jobId])).rows[0];
    return row.markers_outcome ? row : undefined;
  }, 90_000);
  expect(refused).toMatchObject({ markers_outcome: 'refused', markers_error: expect.stringMatching(/^version_not_found|^not_found/) });
}, 400_000);

test('a result that does not match its type’s schema fails the job invalid_result, refunded; the file’s other results are stored', async () => {
  await system.startCatalog();
  await startWorker();
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 10, reason: 'test' });
  await api.request('PUT', '/api/v1/catalog/entity-types/jingle', { key, body: { automaticAnalyses: [] } });
  const { assetId } = await confirmedVersion(api, wav, { key, entityType: 'jingle', dmrn: 'DM-BAD-1' });
  const before = (await api.request('GET', '/api/v1/catalog/credits', { key })).body.balance as number;
  const key1 = await api.request('POST', '/api/v1/catalog/analyses', { key, body: { type: 'key', source: { assetId } } });
  const loud = await api.request('POST', '/api/v1/catalog/analyses', { key, body: { type: 'loudness', source: { assetId } } });
  expect([key1.status, loud.status]).toEqual([202, 202]);

  const ended = (jobId: string) =>
    eventually(async () => {
      const job = (await api.request('GET', `/api/v1/catalog/analyses/${jobId}`, { key })).body;
      return job.status === 'SUCCEEDED' || job.status === 'FAILED' ? job : undefined;
    }, 60_000);
  const failed = await ended(key1.body.jobId);
  expect(failed).toMatchObject({ status: 'FAILED', creditsCharged: 0, error: { code: 'invalid_result' } });
  expect(failed.error.message).toContain('/camelot');
  expect(failed.result ?? null).toBeNull();
  const succeeded = await ended(loud.body.jobId);
  expect(succeeded).toMatchObject({ status: 'SUCCEEDED', creditsCharged: loud.body.creditsCharged });
  const credits = (await api.request('GET', '/api/v1/catalog/credits', { key })).body;
  expect(credits).toMatchObject({ balance: before - loud.body.creditsCharged, reserved: 0 });
  const { rows } = await db.query('select result from analysis.jobs where id = $1', [key1.body.jobId]);
  expect(rows[0].result).toBeNull();
}, 120_000);
