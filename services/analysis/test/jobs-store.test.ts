import type pg from 'pg';
import { newId } from '@catalog/platform';
import { startAnalysisUnderTest, type AnalysisUnderTest } from './support/service.js';

/**
 * The analysis schema's guarantees (decision 0086): the credit ledger is append-only; a balance can
 * never go negative, whatever the application does.
 */
let service: AnalysisUnderTest;
let sql: pg.Client;

beforeAll(async () => {
  service = await startAnalysisUnderTest({ database: 'analysisjobs', prefix: 'anjobs' }, {});
  ({ sql } = service);
});
afterAll(() => service?.stop());

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
