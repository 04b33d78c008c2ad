import { sql, type Kysely, type Transaction } from 'kysely';
import { runTransaction } from '@catalog/platform';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * Queries of `catalog.attach_intents` (decisions 0025 and 0058), an internal queue without
 * row-level security: the writes of a version's creation run in its tenant's context and name the
 * tenant, the sweeper's claim reads the rows of every tenant.
 */
export interface AttachIntent {
  /** The version the asset is attached to; made by the catalog before the version is written. */
  versionId: string;
  tenantId: string;
  assetId: string;
  /** The source system of the write that makes the version. */
  sourceSystem: string;
}

/** The partial unique index that lets one unclaimed intent reserve an asset of a tenant. */
export const ONE_INTENT_PER_ASSET_INDEX = 'attach_intents_asset_key';

export async function insertAttachIntent(db: Kysely<CatalogDb>, intent: AttachIntent): Promise<void> {
  await db
    .insertInto('attach_intents')
    .values({ version_id: intent.versionId, tenant_id: intent.tenantId, asset_id: intent.assetId, source_system: intent.sourceSystem })
    .execute();
}

/**
 * Deletes the intent of a version unless the sweeper claimed it; true when there was one. Inside
 * a transaction the deleted row stays locked until it ends, so the sweeper passes it by meanwhile;
 * a claim being written makes it wait for that claim (a short statement) and then find none.
 */
export async function takeUnclaimedAttachIntent(trx: Transaction<CatalogDb>, tenantId: string, versionId: string): Promise<boolean> {
  const result = await trx
    .deleteFrom('attach_intents')
    .where('tenant_id', '=', tenantId)
    .where('version_id', '=', versionId)
    .where('claimed_until', 'is', null)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Deletes the intent of a version, claimed or not (its asset was given back, or never attached). */
export async function deleteAttachIntent(db: Kysely<CatalogDb>, tenantId: string, versionId: string): Promise<void> {
  await db.deleteFrom('attach_intents').where('tenant_id', '=', tenantId).where('version_id', '=', versionId).execute();
}

export interface ClaimOptions {
  /** Only intents recorded at least this long ago (by the database's clock). */
  graceMs: number;
  /** How long the claim keeps other sweepers away. */
  leaseMs: number;
  limit: number;
  /** Only intents of versions after this one (version id order). */
  afterVersionId?: string | undefined;
}

const millis = (ms: number) => sql<Date>`make_interval(secs => ${ms / 1000}::double precision)`;

/**
 * Claims up to `limit` intents of any tenant, in version id order, in ONE statement (its own short
 * transaction): older than the grace, not claimed or with a lapsed claim, and not held by a running
 * transaction (a version being written, another sweeper's claim: SKIP LOCKED). Each claimed row
 * gets `claimed_until` = now + lease, which also tells its version's transaction that the version
 * is given up. Returns the claimed intents.
 */
export function claimStaleAttachIntents(db: Kysely<CatalogDb>, options: ClaimOptions): Promise<AttachIntent[]> {
  let stale = db
    .selectFrom('attach_intents')
    .select('version_id')
    .where('created_at', '<=', sql<Date>`now() - ${millis(options.graceMs)}`)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', sql<Date>`now()`)]));
  if (options.afterVersionId !== undefined) stale = stale.where('version_id', '>', options.afterVersionId);
  return db
    .updateTable('attach_intents')
    .set({ claimed_until: sql<Date>`now() + ${millis(options.leaseMs)}` })
    .where('version_id', 'in', stale.orderBy('version_id').limit(options.limit).forUpdate().skipLocked())
    .returning(['version_id as versionId', 'tenant_id as tenantId', 'asset_id as assetId', 'source_system as sourceSystem'])
    .execute()
    .then((rows) => rows.sort((a, b) => (a.versionId < b.versionId ? -1 : a.versionId > b.versionId ? 1 : 0)));
}

/**
 * Settles claimed intents in one transaction: deletes those whose asset the asset service answered
 * for, and ends the lease of the others (still claimed, so their versions stay given up; the next
 * pass takes them again).
 */
export async function settleClaimedAttachIntents(
  db: Kysely<CatalogDb>,
  answered: readonly string[],
  unanswered: readonly string[],
): Promise<void> {
  if (answered.length === 0 && unanswered.length === 0) return;
  await runTransaction(db, async (trx) => {
    if (answered.length > 0) await trx.deleteFrom('attach_intents').where('version_id', 'in', answered).execute();
    if (unanswered.length > 0)
      await trx
        .updateTable('attach_intents')
        .set({ claimed_until: sql<Date>`now()` })
        .where('version_id', 'in', unanswered)
        .execute();
  });
}
