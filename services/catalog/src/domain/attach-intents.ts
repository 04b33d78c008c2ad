/**
 * Attach intents (docs/decisions/0025-attach-intents.md): before a version's transaction asks the
 * asset service to attach an existing asset to the version, the catalog commits an intent; the
 * version's transaction deletes it first thing, so it goes with the version's commit. An intent
 * that outlives the version's transaction belongs to a version that was never written: its asset
 * is released (if it is still that version's file), at once or, failing that, by the sweeper.
 */
import { AppError, inTenantScope, newId, type CallContext, type Kysely, type Logger, type Transaction } from '@catalog/platform';
import type { AssetClient } from '../integration/asset-client.js';
import {
  claimStaleAttachIntents,
  deleteAttachIntent,
  deleteClaimedAttachIntents,
  insertAttachIntent,
  type AttachIntent,
} from '../persistence/attach-intents.js';
import type { CatalogDb } from '../persistence/tables.js';

export type { AttachIntent } from '../persistence/attach-intents.js';

export interface AttachIntentDeps {
  db: Kysely<CatalogDb>;
  assets: Pick<AssetClient, 'release'>;
  logger: Logger;
}

export interface AttachIntentSweepDeps extends AttachIntentDeps {
  /** An intent is left alone this long after it was recorded (its version's transaction may not have begun yet). */
  graceMs: number;
  /** Intents claimed, and released concurrently, per transaction. */
  batchSize: number;
}

export const ATTACH_SWEEP_BATCH_SIZE = 100;

/** Commits the intent on its own, before the version's transaction begins. */
export async function recordAttachIntent(db: Kysely<CatalogDb>, intent: AttachIntent): Promise<void> {
  await inTenantScope(db, intent.tenantId, (scoped) => insertAttachIntent(scoped, intent));
}

/**
 * The first statement of the version's transaction: deletes the intent, which stays locked until
 * the transaction ends (the sweeper skips it meanwhile) and is gone for good once it commits. If it
 * is gone already, the sweeper took it (the transaction began more than the grace after the intent)
 * and may have released the asset meanwhile: the version is not written, the caller may try again.
 */
export async function takeAttachIntent(trx: Transaction<CatalogDb>, intent: AttachIntent): Promise<void> {
  if (await deleteAttachIntent(trx, intent.tenantId, intent.versionId)) return;
  throw new AppError(503, 'service_unavailable', 'the version could not be written in time; try again');
}

type ReleaseAnswer = 'released' | 'unchanged' | 'refused' | 'unanswered';

/**
 * Asks the asset service to release the intent's asset if it is still the file of the intent's
 * version (else it changes nothing). `refused`: it answered with an error of the request, which
 * asking again would not change; `unanswered`: not reached, too slow, or failed itself.
 */
async function releaseIntentAsset(deps: Pick<AttachIntentDeps, 'assets' | 'logger'>, call: CallContext, intent: AttachIntent): Promise<ReleaseAnswer> {
  const { assetId, versionId } = intent;
  try {
    const { released } = await deps.assets.release(call, assetId, versionId);
    if (released) deps.logger.info({ assetId, versionId }, 'released the file of a version that was not written');
    return released ? 'released' : 'unchanged';
  } catch (error) {
    if (error instanceof AppError && error.status < 500) {
      deps.logger.error({ err: error, assetId, versionId }, 'the asset service refused to release the file of a version that was not written');
      return 'refused';
    }
    deps.logger.warn({ err: error, assetId, versionId }, 'could not release the file of a version that was not written; the attach-intent sweeper will try again');
    return 'unanswered';
  }
}

/** Deletes an intent outside the version's transaction; if that fails, the sweeper settles it later. */
async function dropAttachIntent(deps: AttachIntentDeps, intent: AttachIntent): Promise<void> {
  try {
    await inTenantScope(deps.db, intent.tenantId, (db) => deleteAttachIntent(db, intent.tenantId, intent.versionId));
  } catch (error) {
    deps.logger.warn({ err: error, assetId: intent.assetId, versionId: intent.versionId }, 'could not delete an attach intent; the sweeper will settle it');
  }
}

/**
 * What became of the attach asked inside a version's transaction: not asked; answered (attached,
 * or refused); or asked without an answer (timeout, no responder), in which case it may still
 * reach the asset service later, even after an immediate release.
 */
export type AttachOutcome = 'not_requested' | 'answered' | 'unanswered';

/**
 * After the version's transaction failed: if the attach was asked, the asset service is asked at
 * once to release the asset. The intent is deleted when nothing was attached, or when both the
 * attach and the release were answered; otherwise it is left for the sweeper, which asks again
 * after the grace (by then an attach still in flight has landed or never will). Never throws.
 */
export async function abandonAttachIntent(deps: AttachIntentDeps, call: CallContext, intent: AttachIntent, attach: AttachOutcome): Promise<void> {
  if (attach !== 'not_requested') {
    const release = await releaseIntentAsset(deps, call, intent);
    if (release === 'unanswered' || attach === 'unanswered') return;
  }
  await dropAttachIntent(deps, intent);
}

export interface AttachSweepResult {
  /** Intents claimed (older than the grace, not held by a running transaction). */
  claimed: number;
  /** Assets released (the rest were no longer those versions' files, or were never attached). */
  released: number;
  /** Intents kept for the next pass because the asset service did not answer. */
  kept: number;
}

/**
 * One pass of the sweeper, safe with several replicas: claims intents older than the grace with
 * FOR UPDATE SKIP LOCKED, in batches; asks the asset service to release each asset (with the
 * intent's tenant and source system); deletes the intents it answered for in the same transaction,
 * and keeps the others for the next pass. A batch that got no answer at all ends the pass.
 */
export async function sweepAttachIntents(deps: AttachIntentSweepDeps): Promise<AttachSweepResult> {
  const result: AttachSweepResult = { claimed: 0, released: 0, kept: 0 };
  let afterVersionId: string | undefined;
  for (;;) {
    const { intents, answers } = await deps.db.transaction().execute(async (trx) => {
      const claimed = await claimStaleAttachIntents(trx, { graceMs: deps.graceMs, limit: deps.batchSize, afterVersionId });
      const answered = await Promise.all(
        claimed.map((intent) => releaseIntentAsset(deps, { tenantId: intent.tenantId, keyId: null, sourceSystem: intent.sourceSystem, requestId: newId() }, intent)),
      );
      await deleteClaimedAttachIntents(
        trx,
        claimed.filter((_, i) => answered[i] !== 'unanswered').map((intent) => intent.versionId),
      );
      return { intents: claimed, answers: answered };
    });
    result.claimed += intents.length;
    result.released += answers.filter((answer) => answer === 'released').length;
    const kept = answers.filter((answer) => answer === 'unanswered').length;
    result.kept += kept;
    if (intents.length < deps.batchSize || kept === intents.length) break;
    afterVersionId = intents[intents.length - 1]?.versionId;
  }
  if (result.claimed > 0) deps.logger.info({ ...result }, 'attach intents swept');
  return result;
}
