import {
  MAX_FINGERPRINT_DUPLICATES,
  type FingerprintDuplicate,
  type FingerprintJobResult,
  type FingerprintResult,
} from '@catalog/contracts';
import { inTenantTransaction, type Kysely } from '@catalog/platform';
import { compareFingerprints, DUPLICATE_SIMILARITY } from '../analyzers/index.js';
import { fingerprintKeys, findCandidateFingerprints, unpackFingerprint, upsertFingerprint } from '../persistence/fingerprints.js';
import type { JobRow } from '../persistence/jobs.js';
import type { AnalysisDb } from '../persistence/tables.js';

/** Most candidates (fingerprints sharing a value) compared bit by bit for one job. */
const MAX_CANDIDATES = 200;
/** Sub-fingerprint values of the new fingerprint used to look candidates up (spread over it). */
const LOOKUP_KEYS = 256;

function lookupKeys(raw: readonly number[]): number[] {
  const keys = fingerprintKeys(raw);
  const step = Math.max(1, Math.floor(keys.length / LOOKUP_KEYS));
  return keys.filter((_, i) => i % step === 0).slice(0, LOOKUP_KEYS);
}

/**
 * Stores the fingerprint of the job's file as the asset's latest and lists the tenant's other
 * assets whose fingerprints match it (decision 0089): candidates share sub-fingerprint values
 * (an indexed lookup), then each is compared at its best alignment; a similarity of
 * DUPLICATE_SIMILARITY or more is a duplicate. Most similar first, at most 20.
 */
export async function withDuplicates(db: Kysely<AnalysisDb>, job: JobRow, result: FingerprintResult): Promise<FingerprintJobResult> {
  return inTenantTransaction(db, job.tenant_id, async (trx) => {
    const candidates = await findCandidateFingerprints(trx, job.tenant_id, job.asset_id, lookupKeys(result.raw), MAX_CANDIDATES);
    const duplicates: FingerprintDuplicate[] = [];
    for (const candidate of candidates) {
      const match = compareFingerprints(result.raw, unpackFingerprint(candidate.raw));
      if (match.similarity >= DUPLICATE_SIMILARITY) {
        duplicates.push({
          assetId: candidate.asset_id,
          entityId: candidate.entity_id,
          similarity: match.similarity,
          offsetSeconds: match.offsetSeconds,
        });
      }
    }
    duplicates.sort((a, b) => b.similarity - a.similarity || (a.assetId < b.assetId ? -1 : 1));
    await upsertFingerprint(trx, {
      tenantId: job.tenant_id,
      assetId: job.asset_id,
      entityId: job.entity_id,
      jobId: job.id,
      raw: result.raw,
    });
    return { ...result, duplicates: duplicates.slice(0, MAX_FINGERPRINT_DUPLICATES) };
  });
}
