import { jetstreamManager } from '@nats-io/jetstream';
import type pg from 'pg';
import { newId } from '@catalog/platform';
import { eventually, testBus } from '@catalog/testing';
import { startAnalysisUnderTest, type AnalysisUnderTest } from './support/service.js';

/**
 * The analysis schema's guarantees (decisions 0086, 0087): a job committed without its message on
 * the work queue is put there by the dispatcher; the credit ledger is append-only; a balance can
 * never go negative, whatever the application does.
 */
let service: AnalysisUnderTest;
let sql: pg.Client;
let prefix: string;

beforeAll(async () => {
  service = await startAnalysisUnderTest({ database: 'analysisjobs', prefix: 'anjobs' }, { ANALYSIS_DISPATCH_INTERVAL_MS: '100' });
  ({ sql, prefix } = service);
});
afterAll(() => service?.stop());

test('a QUEUED job whose message was never published is put on the work queue by the dispatcher', async () => {
  const [jobId, tenantId, assetId] = [newId(), newId(), newId()];
  await sql.query(
    `insert into analysis.jobs (id, tenant_id, type, status, source, asset_id, cost, source_system, created_at)
     values ($1, $2, 'loudness', 'QUEUED', $3, $4, 2, 'test', now() - interval '1 hour')`,
    [jobId, tenantId, JSON.stringify({ assetId }), assetId],
  );
  await eventually(async () => {
    const { rows } = await sql.query('select dispatched_at from analysis.jobs where id = $1', [jobId]);
    return rows[0]?.dispatched_at ? true : undefined;
  }, 15_000);
  const nc = await testBus('analysis-jobs-test');
  try {
    const jsm = await jetstreamManager(nc);
    const stream = `${prefix}_analysis_jobs`.toUpperCase().replace(/-/g, '_');
    const message = await jsm.streams.getMessage(stream, { last_by_subj: `${prefix}.analysis.jobs.loudness` });
    expect(message?.json()).toEqual({ jobId, tenantId, assetId, type: 'loudness' });
  } finally {
    await nc.drain();
  }
});

test('the credit ledger is append-only, and neither a balance nor a reservation can go negative', async () => {
  const tenantId = newId();
  await sql.query(`insert into analysis.credit_accounts (tenant_id, balance, reserved) values ($1, 1, 0)`, [tenantId]);
  await sql.query(
    `insert into analysis.credit_ledger (id, tenant_id, kind, amount, balance_after, reason) values ($1, $2, 'grant', 1, 1, 'test')`,
    [newId(), tenantId],
  );
  await expect(sql.query('update analysis.credit_ledger set amount = 100 where tenant_id = $1', [tenantId])).rejects.toThrow(/append-only/);
  await expect(sql.query('delete from analysis.credit_ledger where tenant_id = $1', [tenantId])).rejects.toThrow(/append-only/);
  await expect(sql.query('update analysis.credit_accounts set balance = balance - 2 where tenant_id = $1', [tenantId])).rejects.toThrow(
    /check constraint/,
  );
  await expect(sql.query('update analysis.credit_accounts set reserved = -1 where tenant_id = $1', [tenantId])).rejects.toThrow(
    /check constraint/,
  );
});
