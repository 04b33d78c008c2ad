import { sql, type Kysely, type Selectable } from 'kysely';
import type { AnalysisDb, FingerprintsTable } from './tables.js';

/**
 * Queries of `analysis.fingerprints` (decision 0089), in the job's tenant context: each asset's
 * latest fingerprint, and the candidates that share sub-fingerprint values with a new one (the
 * GIN index on `keys`), which the caller then compares bit by bit.
 */
export type FingerprintRow = Selectable<FingerprintsTable>;

export interface StoredFingerprint {
  tenantId: string;
  assetId: string;
  entityId: string | null;
  jobId: string;
  raw: readonly number[];
}

/** The raw 32-bit values as little-endian bytes, and back. */
export function packFingerprint(raw: readonly number[]): Buffer {
  const bytes = Buffer.alloc(raw.length * 4);
  raw.forEach((value, i) => bytes.writeUInt32LE(value >>> 0, i * 4));
  return bytes;
}

export function unpackFingerprint(bytes: Buffer): number[] {
  const values: number[] = [];
  for (let i = 0; i + 4 <= bytes.length; i += 4) values.push(bytes.readUInt32LE(i));
  return values;
}

/** Distinct values as signed 32-bit integers (Postgres' integer). */
export function fingerprintKeys(raw: readonly number[]): number[] {
  return [...new Set(raw.map((value) => value | 0))];
}

export async function upsertFingerprint(db: Kysely<AnalysisDb>, fingerprint: StoredFingerprint): Promise<void> {
  const values = {
    entity_id: fingerprint.entityId,
    job_id: fingerprint.jobId,
    raw: packFingerprint(fingerprint.raw),
    keys: fingerprintKeys(fingerprint.raw),
  };
  await db
    .insertInto('fingerprints')
    .values({ tenant_id: fingerprint.tenantId, asset_id: fingerprint.assetId, ...values })
    .onConflict((oc) => oc.columns(['tenant_id', 'asset_id']).doUpdateSet({ ...values, updated_at: sql<Date>`clock_timestamp()` }))
    .execute();
}

/** Other assets of the tenant whose fingerprints share at least one of `keys` (at most `limit`). */
export function findCandidateFingerprints(
  db: Kysely<AnalysisDb>,
  tenantId: string,
  assetId: string,
  keys: readonly number[],
  limit: number,
): Promise<FingerprintRow[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('fingerprints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('asset_id', '<>', assetId)
    .where(sql<boolean>`keys && ${sql.val([...keys])}::integer[]`)
    .limit(limit)
    .execute();
}
