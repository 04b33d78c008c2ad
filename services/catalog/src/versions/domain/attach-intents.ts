/**
 * Attach intents (docs/decisions/0025-attach-intents.md, 0058-no-transaction-across-bus-calls.md):
 * before the catalog asks the asset service to attach an existing asset to a new version, it
 * commits an intent, which reserves the asset for that version. The version's transaction deletes
 * it first thing, so it goes with the version's commit. An intent that outlives its version's
 * creation belongs to a version that was never written: its asset is released (if it is still that
 * version's file), at once or, failing that, by the sweeper. No transaction is open while the
 * asset service is called.
 */
import {
  AppError,
  conflict,
  inTenantScope,
  inTenantTransaction,
  newId,
  type CallContext,
  type Kysely,
  type Logger,
  type Transaction,
} from '@catalog/platform';
import type { AssetClient } from '../../integration/asset-client.js';
import {
  claimStaleAttachIntents,
  deleteAttachIntent,
  insertAttachIntent,
  ONE_INTENT_PER_ASSET_INDEX,
  settleClaimedAttachIntents,
  takeUnclaimedAttachIntent,
  type AttachIntent,
} from '../persistence/attach-intents.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { isUniqueViolation } from '../../persistence/unique-violation.js';
import { findVersionByAsset } from '../persistence/versions.js';

export type { AttachIntent } from '../persistence/attach-intents.js';

export interface AttachIntentDeps {
  db: Kysely<CatalogDb>;
  assets: Pick<AssetClient, 'release'>;
  logger: Logger;
}

export interface AttachIntentSweepDeps extends AttachIntentDeps {
  /** An intent is left alone this long after it was recorded (its version is still being made). */
  graceMs: number;
  /** How long a claim keeps other sweepers off an intent; longer than a release call can take. */
  claimLeaseMs: number;
  /** Intents claimed, and released concurrently, per round. */
  batchSize: number;
}

export const ATTACH_SWEEP_BATCH_SIZE = 100;

/** 409 asset_in_use, naming the version (and its entity) that has the asset when it is known. */
export const assetInUse = (assetId: string, user?: { id: string; entity_id: string }): AppError =>
  conflict('asset_in_use', 'the asset is already the file of another version', {
    assetId,
    ...(user ? { versionId: user.id, entityId: user.entity_id } : {}),
  });

/**
 * Commits the intent, in a short transaction of its own, before anything is attached. It reserves
 * the asset: a second intent for the same asset is refused by the partial unique index (409
 * asset_in_use), and so is an asset that is already a written version's file. The check of the
 * versions comes after the insert, which waits for a version transaction holding a former intent of
 * the asset, so it sees that version once it has committed.
 */
export async function recordAttachIntent(db: Kysely<CatalogDb>, intent: AttachIntent): Promise<void> {
  try {
    await inTenantTransaction(db, intent.tenantId, async (trx) => {
      await insertAttachIntent(trx, intent);
      const user = await findVersionByAsset(trx, intent.tenantId, intent.assetId);
      if (user) throw assetInUse(intent.assetId, user);
    });
  } catch (error) {
    if (isUniqueViolation(error, ONE_INTENT_PER_ASSET_INDEX)) throw assetInUse(intent.assetId);
    throw error;
  }
}

/**
 * The first statement of the version's transaction: deletes the intent, which stays locked until
 * the transaction ends (the sweeper skips it meanwhile) and is gone for good once it commits. If the
 * sweeper claimed it (the version took longer than the grace to get here), the version is given up
 * and may have been released already: it is not written, the caller may try again.
 */
export async function takeAttachIntent(trx: Transaction<CatalogDb>, intent: AttachIntent): Promise<void> {
  if (await takeUnclaimedAttachIntent(trx, intent.tenantId, intent.versionId)) return;
  throw new AppError(503, 'service_unavailable', 'the version could not be written in time; try again');
}

type ReleaseAnswer = 'released' | 'unchanged' | 'refused' | 'unanswered';

/**
 * Asks the asset service to release the intent's asset if it is still the file of the intent's
 * version (else it changes nothing). `refused`: it answered with an error of the request, which
 * asking again would not change; `unanswered`: not reached, too slow, or failed itself.
 */
async function releaseIntentAsset(
  deps: Pick<AttachIntentDeps, 'assets' | 'logger'>,
  call: CallContext,
  intent: AttachIntent,
): Promise<ReleaseAnswer> {
  const { assetId, versionId } = intent;
  try {
    const { released } = await deps.assets.release(call, assetId, versionId);
    if (released) deps.logger.info({ assetId, versionId }, 'released the file of a version that was not written');
    return released ? 'released' : 'unchanged';
  } catch (error) {
    if (error instanceof AppError && error.status < 500) {
      deps.logger.error(
        { err: error, assetId, versionId },
        'the asset service refused to release the file of a version that was not written',
      );
      return 'refused';
    }
    deps.logger.warn(
      { err: error, assetId, versionId },
      'could not release the file of a version that was not written; the attach-intent sweeper will try again',
    );
    return 'unanswered';
  }
}

/** Deletes an intent once its asset is settled; if that fails, the sweeper settles it later. */
async function dropAttachIntent(deps: AttachIntentDeps, intent: AttachIntent): Promise<void> {
  try {
    await inTenantScope(deps.db, intent.tenantId, (db) => deleteAttachIntent(db, intent.tenantId, intent.versionId));
  } catch (error) {
    deps.logger.warn(
      { err: error, assetId: intent.assetId, versionId: intent.versionId },
      'could not delete an attach intent; the sweeper will settle it',
    );
  }
}

/**
 * What became of the attach asked for a version: answered (attached, or refused), or asked without
 * an answer (timeout, no responder), in which case it may still reach the asset service later,
 * even after an immediate release.
 */
export type AttachOutcome = 'answered' | 'unanswered';

/**
 * After the version was not written: the asset service is asked at once to release the asset. The
 * intent is deleted when both the attach and the release were answered; otherwise it is left for
 * the sweeper, which asks again after the grace (by then an attach still in flight has landed or
 * never will). Never throws.
 */
export async function abandonAttachIntent(
  deps: AttachIntentDeps,
  call: CallContext,
  intent: AttachIntent,
  attach: AttachOutcome,
): Promise<void> {
  const release = await releaseIntentAsset(deps, call, intent);
  if (release === 'unanswered' || attach === 'unanswered') return;
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
 * One pass of the sweeper, safe with several replicas, in rounds of three steps with no
 * transaction open across the asset service's calls: claim intents older than the grace (one
 * statement, SKIP LOCKED, a lease stamped on each); ask the asset service to release each asset (in
 * parallel, with the intent's tenant and source system); settle (delete the intents it answered
 * for, end the lease of the others, kept for the next pass). A round without any answer ends the pass.
 */
export async function sweepAttachIntents(deps: AttachIntentSweepDeps): Promise<AttachSweepResult> {
  const result: AttachSweepResult = { claimed: 0, released: 0, kept: 0 };
  let afterVersionId: string | undefined;
  for (;;) {
    const intents = await claimStaleAttachIntents(deps.db, {
      graceMs: deps.graceMs,
      leaseMs: deps.claimLeaseMs,
      limit: deps.batchSize,
      afterVersionId,
    });
    const answers = await Promise.all(
      intents.map((intent) =>
        releaseIntentAsset(deps, { tenantId: intent.tenantId, keyId: null, sourceSystem: intent.sourceSystem, requestId: newId() }, intent),
      ),
    );
    const answered = intents.filter((_, i) => answers[i] !== 'unanswered').map((intent) => intent.versionId);
    const unanswered = intents.filter((_, i) => answers[i] === 'unanswered').map((intent) => intent.versionId);
    await settleClaimedAttachIntents(deps.db, answered, unanswered);
    result.claimed += intents.length;
    result.released += answers.filter((answer) => answer === 'released').length;
    result.kept += unanswered.length;
    if (intents.length < deps.batchSize || unanswered.length === intents.length) break;
    afterVersionId = intents[intents.length - 1]?.versionId;
  }
  if (result.claimed > 0) deps.logger.info({ ...result }, 'attach intents swept');
  return result;
}
