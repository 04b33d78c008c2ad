import { sql, type Kysely, type Transaction } from 'kysely';
import type { CatalogDb } from './tables.js';

/**
 * Queries of `catalog.attach_intents` (decision 0025), an internal queue without row-level
 * security: the writes of a version's creation run in its tenant's context and name the tenant,
 * the sweeper's claim reads the rows of every tenant.
 */
export interface AttachIntent {
  /** The version the asset is attached to; made by the catalog before the version is written. */
  versionId: string;
  tenantId: string;
  assetId: string;
  /** The source system of the write that makes the version. */
  sourceSystem: string;
}

export async function insertAttachIntent(db: Kysely<CatalogDb>, intent: AttachIntent): Promise<void> {
  await db
    .insertInto('attach_intents')
    .values({ version_id: intent.versionId, tenant_id: intent.tenantId, asset_id: intent.assetId, source_system: intent.sourceSystem })
    .execute();
}

/**
 * Deletes the intent of a version; true when there was one. Inside a transaction the deleted row
 * stays locked until it ends, so the sweeper passes it by meanwhile.
 */
export async function deleteAttachIntent(db: Kysely<CatalogDb>, tenantId: string, versionId: string): Promise<boolean> {
  const result = await db.deleteFrom('attach_intents').where('tenant_id', '=', tenantId).where('version_id', '=', versionId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Claims up to `limit` intents of any tenant recorded at least `graceMs` ago (by the database's
 * clock), in version id order after `afterVersionId`; rows another transaction holds (a version's
 * transaction still running, another sweeper) are skipped.
 */
export function claimStaleAttachIntents(
  trx: Transaction<CatalogDb>,
  options: { graceMs: number; limit: number; afterVersionId?: string | undefined },
): Promise<AttachIntent[]> {
  let query = trx
    .selectFrom('attach_intents')
    .select(['version_id as versionId', 'tenant_id as tenantId', 'asset_id as assetId', 'source_system as sourceSystem'])
    .where('created_at', '<=', sql<Date>`now() - make_interval(secs => ${options.graceMs / 1000}::double precision)`);
  if (options.afterVersionId !== undefined) query = query.where('version_id', '>', options.afterVersionId);
  return query.orderBy('version_id').limit(options.limit).forUpdate().skipLocked().execute();
}

/** Deletes the intents of these versions (claimed by the caller's transaction). */
export async function deleteClaimedAttachIntents(trx: Transaction<CatalogDb>, versionIds: readonly string[]): Promise<void> {
  if (versionIds.length === 0) return;
  await trx.deleteFrom('attach_intents').where('version_id', 'in', versionIds).execute();
}
