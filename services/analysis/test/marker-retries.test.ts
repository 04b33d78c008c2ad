import type pg from 'pg';
import { newId } from '@catalog/platform';
import { eventually } from '@catalog/testing';
import { startAnalysisUnderTest, type AnalysisUnderTest } from './support/service.js';

/**
 * The retries of cue points as markers (decision 0088) when the catalog never answers (no catalog
 * runs on this NATS prefix): each try is counted, the last one records `gave_up`; a job of a
 * version that a newer cue_points job succeeded for is `superseded` without a call. Both paths
 * with the contract test's catalog (applied, set_by_hand, refused) are in
 * test/contract/analyses-worker-outcomes.test.ts.
 */
let service: AnalysisUnderTest;
let sql: pg.Client;

beforeAll(async () => {
  service = await startAnalysisUnderTest(
    { database: 'analysismarkers', prefix: 'anmark' },
    {
      ANALYSIS_MARKERS_RETRY_INTERVAL_MS: '100',
      ANALYSIS_MARKERS_RETRY_MIN_MS: '50',
      ANALYSIS_MARKERS_RETRY_MAX_MS: '100',
      ANALYSIS_MARKERS_MAX_ATTEMPTS: '3',
    },
  );
  ({ sql } = service);
});
afterAll(() => service?.stop());

async function succeededCuePoints(tenantId: string, versionId: string, finishedSecondsAgo: number): Promise<string> {
  const [id, assetId] = [newId(), newId()];
  const result = { cueInMs: 0, introEndMs: null, outroStartMs: null, nextTrackStartMs: null, cueOutMs: 1000 };
  await sql.query(
    `insert into analysis.jobs
       (id, tenant_id, type, status, source, asset_id, version_id, cost, source_system, result, summary, result_bytes, finished_at)
     values ($1, $2, 'cue_points', 'SUCCEEDED', $3, $4, $5, 2, 'test', $6::jsonb, $6::jsonb, octet_length($6::text), now() - make_interval(secs => $7))`,
    [id, tenantId, JSON.stringify({ versionId }), assetId, versionId, JSON.stringify(result), finishedSecondsAgo],
  );
  return id;
}

test('a catalog that never answers: each try counted, given up after the last; an older job of the version is superseded', async () => {
  const [tenantId, versionId] = [newId(), newId()];
  const older = await succeededCuePoints(tenantId, versionId, 60);
  const newer = await succeededCuePoints(tenantId, versionId, 1);
  const row = (id: string) =>
    sql.query('select markers_outcome, markers_attempts, markers_error from analysis.jobs where id = $1', [id]).then((r) => r.rows[0]);
  const ended = await eventually(async () => {
    const current = await row(newer);
    return current.markers_outcome ? current : undefined;
  }, 15_000);
  expect(ended).toMatchObject({ markers_outcome: 'gave_up', markers_attempts: 3 });
  expect(ended.markers_error).toMatch(/^service_unavailable/);
  expect(await row(older)).toMatchObject({ markers_outcome: 'superseded', markers_attempts: 0 });
});
