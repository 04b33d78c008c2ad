import { sql, type Insertable, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { AssetDb, AssetsTable } from './tables.js';

export type AssetRow = Selectable<AssetsTable>;
export type NewAssetRow = Insertable<AssetsTable>;
export type AssetPatch = Omit<Updateable<AssetsTable>, 'id' | 'tenant_id' | 'updated_at'>;
type Trx = Transaction<AssetDb>;

/** Every query names the tenant explicitly as well; row-level security is the second guard. */
export async function findAsset(trx: Trx, tenantId: string, id: string, options: { lock?: boolean } = {}): Promise<AssetRow | undefined> {
  let query = trx.selectFrom('assets').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Locks the asset unless another transaction holds it (then undefined: try again later). */
export async function lockAssetIfFree(trx: Trx, tenantId: string, id: string): Promise<AssetRow | undefined> {
  return trx
    .selectFrom('assets')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/**
 * The upload lock of an asset (a transaction-level advisory lock, decision 0058): placing uploaded
 * bytes under the asset's key (fs), confirming, issuing a new upload target and expiring take it
 * first, so they never interleave. Unlike a row lock it gives the transaction no xid, so the fs
 * upload may hold it while its file is renamed into place without holding back the outbox relays
 * and the feed of the cluster.
 */
export async function lockUpload(trx: Trx, assetId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`asset-upload:${assetId}`}, 0))`.execute(trx);
}

/** Takes the upload lock of an asset if nobody holds it; false when busy. */
export async function tryLockUpload(trx: Trx, assetId: string): Promise<boolean> {
  const result = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(hashtextextended(${`asset-upload:${assetId}`}, 0)) as locked`.execute(trx);
  return result.rows[0]?.locked === true;
}

/** Inserts an asset and puts it in the retention queue at its `expires_at` (if any). */
export async function insertAsset(trx: Trx, row: NewAssetRow): Promise<AssetRow> {
  const inserted = await trx.insertInto('assets').values(row).returningAll().executeTakeFirstOrThrow();
  await setExpiry(trx, inserted.tenant_id, inserted.id, inserted.expires_at);
  return inserted;
}

/** Updates an asset; a patch that sets `expires_at` moves it in the retention queue too (null: out of it). */
export async function updateAsset(trx: Trx, tenantId: string, id: string, patch: AssetPatch): Promise<AssetRow> {
  const updated = await trx
    .updateTable('assets')
    .set({ ...patch, updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (patch.expires_at !== undefined) await setExpiry(trx, tenantId, id, updated.expires_at);
  return updated;
}

/** Puts the asset in the retention queue at `dueAt`, or takes it out (null). */
export async function setExpiry(trx: Trx, tenantId: string, assetId: string, dueAt: Date | null): Promise<void> {
  if (dueAt === null) {
    await trx.deleteFrom('expiries').where('asset_id', '=', assetId).where('tenant_id', '=', tenantId).execute();
    return;
  }
  await trx
    .insertInto('expiries')
    .values({ asset_id: assetId, tenant_id: tenantId, due_at: dueAt })
    .onConflict((oc) => oc.column('asset_id').doUpdateSet({ due_at: dueAt }))
    .execute();
}

/** Claims up to `limit` due queue entries of any tenant; entries another sweeper holds are skipped. */
export async function claimDueExpiries(trx: Trx, limit: number): Promise<Array<{ asset_id: string; tenant_id: string }>> {
  return trx
    .selectFrom('expiries')
    .select(['asset_id', 'tenant_id'])
    .where('due_at', '<=', sql<Date>`now()`)
    .orderBy('due_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Binds the rest of the transaction to `tenantId` (row-level security reads it). */
export async function actAsTenant(trx: Trx, tenantId: string): Promise<void> {
  await sql`select set_config('app.tenant_id', ${tenantId}, true)`.execute(trx);
}
