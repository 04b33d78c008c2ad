import type pg from 'pg';
import { newId } from '@catalog/platform';
import { eventually } from '@catalog/testing';
import { startAnalysisUnderTest, type AnalysisUnderTest } from './support/service.js';

/**
 * The work queue is the jobs' own analysis.queued events (decision 0126), taken by a worker of this
 * service. No asset service runs on this NATS prefix, so every attempt at a job fails for a passing
 * reason (the file cannot be copied) and the job's last attempt fails it, refunded.
 */
let service: AnalysisUnderTest;
let sql: pg.Client;

beforeAll(async () => {
  service = await startAnalysisUnderTest(
    { database: 'analysisqueue', prefix: 'anqueue' },
    {
      ANALYSIS_CONCURRENCY: '1',
      ANALYSIS_ACK_WAIT_MS: '2000',
      ANALYSIS_MAX_DELIVERIES: '2',
      ANALYSIS_RETRY_MIN_MS: '50',
      ANALYSIS_RETRY_MAX_MS: '100',
      ANALYSIS_RPC_TIMEOUT_MS: '500',
    },
  );
  ({ sql } = service);
});
afterAll(() => service?.stop());

interface JobSeed {
  id: string;
  type: string;
  status: 'QUEUED' | 'RUNNING';
  batchLeadId?: string;
}

/** Jobs of one file with their reservations (2 credits each) and their analysis.queued events, as a worker that died left them. */
async function seed(tenantId: string, assetId: string, jobs: JobSeed[], extraEvents: Array<Record<string, unknown>> = []): Promise<void> {
  await sql.query('begin');
  await sql.query('insert into analysis.credit_accounts (tenant_id, balance, reserved) values ($1, 0, $2)', [tenantId, 2 * jobs.length]);
  for (const job of extraEvents) await queuedEvent(tenantId, job);
  for (const job of jobs) {
    const running = job.status === 'RUNNING';
    await sql.query(
      `insert into analysis.jobs (id, tenant_id, type, status, source, asset_id, cost, source_system, attempts, started_at, batch_lead_id)
       values ($1, $2, $3, $4, $5, $6, 2, 'test', $7, case when $7 > 0 then now() end, $8)`,
      [job.id, tenantId, job.type, job.status, JSON.stringify({ assetId }), assetId, running ? 1 : 0, job.batchLeadId ?? null],
    );
    await sql.query(
      `insert into analysis.credit_ledger (id, tenant_id, kind, amount, balance_after, job_id) values ($1, $2, 'reserve', -2, 0, $3)`,
      [newId(), tenantId, job.id],
    );
    const facts = { jobId: job.id, type: job.type, assetId, entityId: null, versionId: null, status: 'QUEUED', credits: 2 };
    await queuedEvent(tenantId, facts);
  }
  await sql.query('commit');
}

async function queuedEvent(tenantId: string, data: Record<string, unknown>): Promise<void> {
  await sql.query(
    `insert into analysis.outbox (id, tenant_id, product, type, resource_kind, resource_id, source_system, batch_id, schema_version, data)
     values ($1, $2, 'catalog', 'analysis.queued', 'analysis', $3, 'test', $4, 1, $5)`,
    [newId(), tenantId, typeof data.jobId === 'string' && data.jobId.length === 36 ? data.jobId : null, newId(), JSON.stringify(data)],
  );
}

const jobsOf = async (ids: string[]) =>
  (await sql.query('select id, status, error_code, error_message, attempts from analysis.jobs where id = any($1) order by type', [ids]))
    .rows;

test('a batch whose worker stopped is taken over by its lead job’s message: every job of it ends, refunded once', async () => {
  const [tenantId, assetId, lead, carried, queued] = [newId(), newId(), newId(), newId(), newId()];
  await seed(
    tenantId,
    assetId,
    [
      { id: lead, type: 'loudness', status: 'RUNNING' },
      { id: carried, type: 'tempo', status: 'RUNNING', batchLeadId: lead },
      { id: queued, type: 'waveform', status: 'QUEUED' },
    ],
    // Not an analysis.queued event of the contracts: dropped, the queue goes on.
    [{ jobId: 'not-a-job', type: 'loudness' }],
  );
  const ended = await eventually(async () => {
    const rows = await jobsOf([lead, carried, queued]);
    return rows.every((row) => row.status === 'FAILED') ? rows : undefined;
  }, 30_000);
  // The lead and the job it carried end on the lead's attempts (the worker that died had one);
  // the QUEUED job of the same file joined the batch (or ran on its own) and failed as well.
  expect(ended.map((row) => row.error_code)).toEqual(['max_deliveries_exceeded', 'max_deliveries_exceeded', 'max_deliveries_exceeded']);
  expect(ended.find((row) => row.id === carried).error_message).toContain('the job failed 2 times');
  const account = (await sql.query('select balance, reserved from analysis.credit_accounts where tenant_id = $1', [tenantId])).rows[0];
  expect(account).toEqual({ balance: '6', reserved: '0' });
  const ledger = await sql.query(`select job_id, count(*)::int as n from analysis.credit_ledger where kind = 'refund' group by job_id`);
  expect(ledger.rows.filter((row) => [lead, carried, queued].includes(row.job_id)).map((row) => row.n)).toEqual([1, 1, 1]);
}, 60_000);
