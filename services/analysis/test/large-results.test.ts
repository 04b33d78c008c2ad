import pg from 'pg';
import { createUrlSigner, inTenantTransaction, migrateSchema, newId, SCHEMA_OWNER_ROLE, type CallContext } from '@catalog/platform';
import { createTestDatabase } from '@catalog/testing';
import { getAnalysis, listAnalyses } from '../src/domain/jobs.js';
import { resultLinks } from '../src/domain/result-links.js';
import { resultSummary } from '../src/domain/summary.js';
import { analysisMigrations } from '../src/migrations/index.js';
import { succeedJob } from '../src/persistence/jobs.js';
import { RESULT_PART_BYTES } from '../src/persistence/results.js';
import { startAnalysisUnderTest, type AnalysisUnderTest } from './support/service.js';

/**
 * Results of any size (decision 0113): a large result is kept in parts and read through the
 * listener behind a signed link that opens one job of one tenant for a minute; listings carry
 * summaries; migration 0006 gives the jobs before it their summaries and parts.
 */
const SECRET = 'large-results-test-link-secret-0123456789';
let service: AnalysisUnderTest;
let links: ReturnType<typeof resultLinks>;

beforeAll(async () => {
  service = await startAnalysisUnderTest({ database: 'analysisresults', prefix: 'anres' }, { ANALYSIS_RESULT_LINK_SECRET: SECRET });
  links = resultLinks(createUrlSigner(SECRET), () => service.runtime.http!.url);
});
afterAll(() => service?.stop());

/** A waveform result of `points` stereo points (16 bits): about 25 bytes of JSON a point. */
function waveform(points: number) {
  const data = Array.from({ length: points * 4 }, (_, i) => ((i * 7919) % 65_536) - 32_768);
  return { version: 2, channels: 2, sample_rate: 44_100, samples_per_pixel: 44, bits: 16, length: points, data };
}

/** A SUCCEEDED job of `tenantId` with `result`, stored as the workers store it. */
async function succeeded(tenantId: string, type: 'waveform' | 'tempo', result: unknown): Promise<string> {
  const [id, assetId] = [newId(), newId()];
  await service.sql.query(
    `insert into analysis.jobs (id, tenant_id, type, status, source, asset_id, cost, source_system, started_at)
     values ($1, $2, $3, 'RUNNING', $4, $5, 2, 'test', now())`,
    [id, tenantId, type, JSON.stringify({ assetId }), assetId],
  );
  const stored = { json: JSON.stringify(result), summary: resultSummary(type, result) };
  const done = await inTenantTransaction(service.runtime.database.db, tenantId, (trx) => succeedJob(trx, tenantId, id, stored));
  expect(done?.status).toBe('SUCCEEDED');
  return id;
}

const callOf = (tenantId: string): CallContext => ({ tenantId, keyId: null, sourceSystem: 'test', requestId: newId() });

test('a large result: kept in parts, answered 303 with a link; the listener streams the job with its whole result', async () => {
  const tenantId = newId();
  const result = waveform(40_000);
  const json = JSON.stringify(result);
  expect(json.length).toBeGreaterThan(3 * RESULT_PART_BYTES);
  const jobId = await succeeded(tenantId, 'waveform', result);
  const { rows } = await service.sql.query(
    'select result, result_bytes, (select count(*)::int from analysis.job_result_parts where job_id = $1) as parts from analysis.jobs where id = $1',
    [jobId],
  );
  expect(rows[0]).toEqual({ result: null, result_bytes: json.length, parts: Math.ceil(json.length / RESULT_PART_BYTES) });

  const answer = await getAnalysis({ db: service.runtime.database.db, links }, callOf(tenantId), jobId, 1024 * 1024);
  expect(answer).toEqual({ status: 303, body: { location: expect.stringContaining(`/analysis-results/${jobId}?`) } });
  const response = await fetch((answer.body as { location: string }).location);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await response.text();
  expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  expect(JSON.parse(text)).toMatchObject({ jobId, type: 'waveform', status: 'SUCCEEDED', error: null, result });

  const page = await listAnalyses({ db: service.runtime.database.db }, callOf(tenantId), {}, 1024 * 1024);
  const { data: _data, ...dimensions } = result;
  expect(page.analyses).toEqual([expect.objectContaining({ jobId, summary: dimensions })]);
  expect(page.analyses[0]).not.toHaveProperty('result');
});

test('a small result rides in the reply; over the reply budget it is streamed too; a tempo summary has no beats', async () => {
  const tenantId = newId();
  const tempo = { bpm: 120, confidence: 0.9, firstBeatMs: 10, firstDownbeatMs: 10, beatsMs: [10, 510, 1010] };
  const jobId = await succeeded(tenantId, 'tempo', tempo);
  const deps = { db: service.runtime.database.db, links };
  expect(await getAnalysis(deps, callOf(tenantId), jobId, 1024 * 1024)).toEqual({
    body: expect.objectContaining({ jobId, result: tempo }),
  });
  const tight = await getAnalysis(deps, callOf(tenantId), jobId, 1_000);
  expect(tight).toMatchObject({ status: 303 });
  const streamed = await (await fetch((tight.body as { location: string }).location)).json();
  expect(streamed).toMatchObject({ jobId, result: tempo });
  const page = await listAnalyses(deps, callOf(tenantId), {}, 1024 * 1024);
  expect(page.analyses[0]!.summary).toEqual({ bpm: 120, confidence: 0.9, firstBeatMs: 10, firstDownbeatMs: 10, beatCount: 3 });
});

test("a link opens its own job of its own tenant, for a minute: another job's path, another tenant, a changed or expired signature are 403", async () => {
  const [tenantId, otherTenant] = [newId(), newId()];
  const jobId = await succeeded(tenantId, 'waveform', waveform(20_000));
  const otherJob = await succeeded(otherTenant, 'waveform', waveform(20_000));
  const url = new URL(links.location(tenantId, jobId));
  const status = async (target: URL) => {
    const response = await fetch(target);
    return {
      status: response.status,
      code: response.status === 200 ? null : ((await response.json()) as { error: { code: string } }).error.code,
    };
  };
  expect((await status(url)).status).toBe(200);
  const elsewhere = new URL(url);
  elsewhere.pathname = `/analysis-results/${otherJob}`;
  expect(await status(elsewhere)).toEqual({ status: 403, code: 'invalid_signature' });
  const foreign = new URL(url);
  foreign.searchParams.set('t', otherTenant);
  expect(await status(foreign)).toEqual({ status: 403, code: 'invalid_signature' });
  const unsigned = new URL(url);
  unsigned.searchParams.delete('sig');
  expect(await status(unsigned)).toEqual({ status: 403, code: 'invalid_signature' });
  const expired = new URL(resultLinks(createUrlSigner(SECRET), () => service.runtime.http!.url, -1_000).location(tenantId, jobId));
  expect(await status(expired)).toEqual({ status: 403, code: 'signature_expired' });
  const forged = new URL(resultLinks(createUrlSigner('another-secret-0123456789-0123456789'), () => url.origin).location(tenantId, jobId));
  expect(await status(forged)).toEqual({ status: 403, code: 'invalid_signature' });
  // Another tenant's link to a job of this one finds nothing (row-level security and the tenant filter).
  expect(await status(new URL(links.location(otherTenant, jobId)))).toEqual({ status: 404, code: 'not_found' });
});

test('migration 0006 gives the jobs before it their summaries and sizes, and moves their large results into parts', async () => {
  const database = await createTestDatabase('anmig6');
  const sql = new pg.Client({ connectionString: database.url });
  try {
    const owner = database.urlAs(SCHEMA_OWNER_ROLE);
    const before = Object.fromEntries(Object.entries(analysisMigrations).filter(([name]) => name < '0006'));
    await migrateSchema({ url: owner, schema: 'analysis', role: 'analysis_app', migrations: before });
    await sql.connect();
    const tenantId = newId();
    const large = waveform(20_000);
    const tempo = { bpm: 98.5, confidence: 0.4, firstBeatMs: null, firstDownbeatMs: null, beatsMs: [] };
    const fingerprint = { algorithm: 1, durationMs: 5_000, fingerprint: 'AQAA', raw: [1, 2], duplicates: [] };
    const ids: Record<string, string> = {};
    for (const [type, result] of Object.entries({ waveform: large, tempo, fingerprint })) {
      ids[type] = newId();
      await sql.query(
        `insert into analysis.jobs (id, tenant_id, type, status, source, asset_id, cost, source_system, result, finished_at)
         values ($1, $2, $3, 'SUCCEEDED', '{}', $4, 1, 'test', $5::jsonb, now())`,
        [ids[type], tenantId, type, newId(), JSON.stringify(result)],
      );
    }
    expect(await migrateSchema({ url: owner, schema: 'analysis', role: 'analysis_app', migrations: analysisMigrations })).toEqual(
      expect.arrayContaining(['0006_result_parts']),
    );
    const row = async (id: string) =>
      (
        await sql.query(
          `select result, summary, result_bytes,
             (select convert_from(string_agg(bytes, ''::bytea order by part), 'UTF8') from analysis.job_result_parts where job_id = $1) as parts
           from analysis.jobs where id = $1`,
          [id],
        )
      ).rows[0];
    const { data: _data, ...dimensions } = large;
    const moved = await row(ids.waveform!);
    expect(moved).toMatchObject({ result: null, summary: dimensions, result_bytes: Buffer.byteLength(moved.parts) });
    expect(JSON.parse(moved.parts)).toEqual(large);
    expect(await row(ids.tempo!)).toMatchObject({ result: tempo, parts: null, summary: { bpm: 98.5, confidence: 0.4, beatCount: 0 } });
    expect((await row(ids.fingerprint!)).summary).toEqual({ algorithm: 1, durationMs: 5_000, duplicateCount: 0 });
  } finally {
    await sql.end();
    await database.drop();
  }
});
