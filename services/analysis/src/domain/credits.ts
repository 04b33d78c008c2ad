import {
  ANALYSIS_COSTS,
  type CreditBalance,
  type CreditGrant,
  type CreditLedger,
  type CreditLedgerEntry,
  type CreditLedgerQuery,
  type GrantCreditsBody,
} from '@catalog/contracts';
import {
  AppError,
  cursorCodec,
  fitPage,
  inTenantScope,
  inTenantTransaction,
  isUuid,
  type CallContext,
  type Kysely,
  type Transaction,
} from '@catalog/platform';
import {
  addToBalance,
  insertLedgerEntry,
  listLedgerEntries,
  readAccount,
  releaseReservation,
  reserveFromBalance,
  type LedgerRow,
} from '../persistence/credits.js';
import type { AnalysisDb } from '../persistence/tables.js';

export interface CreditDeps {
  db: Kysely<AnalysisDb>;
}

/** 402 with what the tenant has and what was asked (decision 0086). */
export function insufficientCredits(balance: number, cost: number): AppError {
  return new AppError(402, 'insufficient_credits', `the analysis costs ${cost} credits; the balance is ${balance}`, { balance, cost });
}

/**
 * Reserves a job's cost in the caller's transaction: the balance row is changed only if it covers
 * the cost (402 `insufficient_credits` otherwise, nothing changed), and the reservation is a
 * ledger entry. A database constraint and the row's lock, not a check of the application, keep
 * concurrent reservations from overdrawing.
 */
export async function reserveCredits(trx: Transaction<AnalysisDb>, tenantId: string, jobId: string, cost: number): Promise<void> {
  const account = await reserveFromBalance(trx, tenantId, cost);
  if (!account) throw insufficientCredits((await readAccount(trx, tenantId)).balance, cost);
  await insertLedgerEntry(trx, { tenantId, kind: 'reserve', amount: -cost, balanceAfter: account.balance, jobId, reason: null });
}

/** Ends a job's reservation: spent once it succeeded (`settle`), returned once it failed (`refund`). */
export async function endReservation(
  trx: Transaction<AnalysisDb>,
  tenantId: string,
  jobId: string,
  cost: number,
  how: 'settle' | 'refund',
): Promise<void> {
  const account = await releaseReservation(trx, tenantId, cost, how);
  await insertLedgerEntry(trx, {
    tenantId,
    kind: how,
    amount: how === 'refund' ? cost : 0,
    balanceAfter: account.balance,
    jobId,
    reason: null,
  });
}

function entryView(row: LedgerRow): CreditLedgerEntry {
  return {
    id: row.id,
    kind: row.kind,
    amount: Number(row.amount),
    balanceAfter: Number(row.balance_after),
    jobId: row.job_id,
    reason: row.reason,
    createdAt: row.created_at.toISOString(),
  };
}

/** `GET /api/v1/catalog/credits`: the caller's balance and the price of each analysis type. */
export async function getCredits(deps: CreditDeps, call: CallContext): Promise<CreditBalance> {
  const account = await inTenantScope(deps.db, call.tenantId, (db) => readAccount(db, call.tenantId));
  return { ...account, costs: { ...ANALYSIS_COSTS } };
}

/** The admin area adds credits to an organisation (its id is the tenant). */
export async function grantCredits(deps: CreditDeps, orgId: string, body: GrantCreditsBody): Promise<CreditGrant> {
  return inTenantTransaction(deps.db, orgId, async (trx) => {
    const account = await addToBalance(trx, orgId, body.amount);
    const entry = await insertLedgerEntry(trx, {
      tenantId: orgId,
      kind: 'grant',
      amount: body.amount,
      balanceAfter: account.balance,
      jobId: null,
      reason: body.reason,
    });
    return { ...account, entry: entryView(entry) };
  });
}

/** The ledger's `after` cursor: the id of the last entry of the previous page (newest first). */
const ledgerCursor = cursorCodec<{ id: string }>({
  version: 1,
  check: (payload): payload is { id: string } => isUuid(payload.id) && Object.keys(payload).length === 1,
});

/** The admin area's view of an organisation's credits: balances and a page of the ledger, newest first. */
export async function getCreditLedger(deps: CreditDeps, orgId: string, query: CreditLedgerQuery, maxBytes: number): Promise<CreditLedger> {
  const before = query.after !== undefined ? ledgerCursor.decode(query.after).id : undefined;
  const limit = query.limit ?? 100;
  return inTenantScope(deps.db, orgId, async (db) => {
    const [account, rows] = await Promise.all([
      readAccount(db, orgId),
      listLedgerEntries(db, orgId, { limit: limit + 1, beforeId: before }),
    ]);
    const page = fitPage(rows.map(entryView), limit, maxBytes - 512);
    const last = page.items[page.items.length - 1];
    return {
      ...account,
      entries: page.items,
      nextCursor: page.hasMore && last ? ledgerCursor.encode({ id: last.id }) : null,
      hasMore: page.hasMore,
    };
  });
}
