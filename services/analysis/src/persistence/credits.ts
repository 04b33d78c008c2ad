import { sql, type Kysely, type Selectable } from 'kysely';
import type { CreditEntryKind } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import type { AnalysisDb, CreditLedgerTable } from './tables.js';

/**
 * Queries of `analysis.credit_accounts` and `analysis.credit_ledger`. Each runs in a tenant context
 * (row-level security applies) and filters by tenant too. Every change of an account is one UPDATE
 * of its row, which takes the row's lock: concurrent changes of one tenant's credits take turns, and
 * the CHECK constraints (balance and reserved never negative) hold whatever the application does.
 */
export type LedgerRow = Selectable<CreditLedgerTable>;

export interface Account {
  balance: number;
  reserved: number;
}

const asAccount = (row: { balance: string; reserved: string } | undefined): Account =>
  row ? { balance: Number(row.balance), reserved: Number(row.reserved) } : { balance: 0, reserved: 0 };

/** The tenant's balances (zero for a tenant that was never granted anything). */
export async function readAccount(db: Kysely<AnalysisDb>, tenantId: string): Promise<Account> {
  return asAccount(
    await db.selectFrom('credit_accounts').select(['balance', 'reserved']).where('tenant_id', '=', tenantId).executeTakeFirst(),
  );
}

/** Adds `amount` to the available balance, creating the account on its first grant. */
export async function addToBalance(db: Kysely<AnalysisDb>, tenantId: string, amount: number): Promise<Account> {
  const row = await db
    .insertInto('credit_accounts')
    .values({ tenant_id: tenantId, balance: amount, reserved: 0 })
    .onConflict((oc) =>
      oc.column('tenant_id').doUpdateSet({
        balance: sql`credit_accounts.balance + ${amount}`,
        updated_at: sql`clock_timestamp()`,
      }),
    )
    .returning(['balance', 'reserved'])
    .executeTakeFirstOrThrow();
  return asAccount(row);
}

/**
 * Moves `amount` from the available balance to the reserved credits, only if the balance covers
 * it: null when it does not (nothing changed). The row's lock serialises concurrent reservations;
 * each re-reads the balance the previous one left.
 */
export async function reserveFromBalance(db: Kysely<AnalysisDb>, tenantId: string, amount: number): Promise<Account | null> {
  const row = await db
    .updateTable('credit_accounts')
    .set({
      balance: sql`balance - ${amount}`,
      reserved: sql`reserved + ${amount}`,
      updated_at: sql`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('balance', '>=', String(amount))
    .returning(['balance', 'reserved'])
    .executeTakeFirst();
  return row ? asAccount(row) : null;
}

/** Ends a reservation of `amount`: spent (settle) or back to the available balance (refund). */
export async function releaseReservation(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  amount: number,
  how: 'settle' | 'refund',
): Promise<Account> {
  const row = await db
    .updateTable('credit_accounts')
    .set({
      reserved: sql`reserved - ${amount}`,
      ...(how === 'refund' ? { balance: sql`balance + ${amount}` } : {}),
      updated_at: sql`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .returning(['balance', 'reserved'])
    .executeTakeFirstOrThrow();
  return asAccount(row);
}

export interface NewLedgerEntry {
  tenantId: string;
  kind: CreditEntryKind;
  amount: number;
  balanceAfter: number;
  jobId: string | null;
  reason: string | null;
}

export function insertLedgerEntry(db: Kysely<AnalysisDb>, entry: NewLedgerEntry): Promise<LedgerRow> {
  return db
    .insertInto('credit_ledger')
    .values({
      id: newId(),
      tenant_id: entry.tenantId,
      kind: entry.kind,
      amount: entry.amount,
      balance_after: entry.balanceAfter,
      job_id: entry.jobId,
      reason: entry.reason,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Ledger entries newest first, before the entry `beforeId` when given. */
export function listLedgerEntries(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  page: { limit: number; beforeId?: string | undefined },
): Promise<LedgerRow[]> {
  let query = db.selectFrom('credit_ledger').selectAll().where('tenant_id', '=', tenantId);
  if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
  return query.orderBy('id', 'desc').limit(page.limit).execute();
}
