import { inTenantScope, inTenantTransaction, type Kysely, type Logger } from '@catalog/platform';
import type { GatewayReader } from '../integration/gateway-client.js';
import { storedSubscription, storeSubscription } from '../persistence/subscriptions.js';
import type { LibraryDb } from '../persistence/tables.js';

/**
 * Which tenants subscribe to the library product (part 6, rule 13: a product's events are recorded
 * for its active subscribers; decision 0149). The projection skips the events of any other tenant:
 * no catalog reads, no tracks, no `track.*` events.
 */
export interface Subscribers {
  /**
   * Whether the tenant subscribes now. A tenant found subscribed whose events were skipped before
   * is caught up first (its tracks rebuilt from the catalog, with their events), so its library
   * starts complete at the moment it subscribed.
   */
  active(tenantId: string): Promise<boolean>;
  /** The tenant's organisation changed (the gateway's notice): looks again now. */
  changed(tenantId: string): Promise<void>;
}

export interface SubscriberDeps {
  db: Kysely<LibraryDb>;
  gateway: GatewayReader;
  /** Rebuilds the tenant's tracks from the catalog (the rebuild of one tenant). */
  catchUp: (tenantId: string) => Promise<void>;
  logger: Logger;
}

/**
 * How long an answer of the gateway is kept: a plan change reaches the projection at once through
 * the gateway's notice, and within this when the notice was lost (decision 0149).
 */
export const SUBSCRIPTION_RECHECK_MS = 10_000;
/** Answers kept at most; the oldest go first (the next look asks again). */
const MAX_KEPT = 10_000;
/** At most one WARN a minute while the gateway does not answer. */
const WARN_EVERY_MS = 60_000;

export function subscribers(deps: SubscriberDeps, recheckMs: number = SUBSCRIPTION_RECHECK_MS): Subscribers {
  const kept = new Map<string, { active: boolean; until: number }>();
  const looking = new Map<string, Promise<boolean>>();
  let warnedAt = -Infinity;

  /** The gateway's answer; null when it does not answer (down, or of a version before this operation). */
  async function asked(tenantId: string): Promise<boolean | null> {
    try {
      return (await deps.gateway.products(tenantId)).includes('library');
    } catch (error) {
      if (Date.now() - warnedAt >= WARN_EVERY_MS) {
        warnedAt = Date.now();
        deps.logger.warn(
          { err: error, tenantId },
          'the gateway did not say whether a tenant subscribes to the library; using what was known',
        );
      }
      return null;
    }
  }

  async function look(tenantId: string): Promise<boolean> {
    const stored = await inTenantScope(deps.db, tenantId, (db) => storedSubscription(db, tenantId));
    const answer = await asked(tenantId);
    // Without an answer, what was found last; a tenant never looked at is projected as it always
    // was, so that a gateway away never stops the library. Only answers are recorded.
    const active = answer ?? stored ?? true;
    // Caught up before it is recorded: a look that failed midway catches up again.
    if (active && stored === false) await deps.catchUp(tenantId);
    if (answer !== null && answer !== stored)
      await inTenantTransaction(deps.db, tenantId, (trx) => storeSubscription(trx, tenantId, answer));
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(tenantId, { active, until: Date.now() + recheckMs });
    return active;
  }

  function active(tenantId: string): Promise<boolean> {
    const known = kept.get(tenantId);
    if (known && known.until > Date.now()) return Promise.resolve(known.active);
    // One look per tenant at a time: the lanes of a tenant wait for its catch-up together.
    let pending = looking.get(tenantId);
    if (!pending) {
      pending = look(tenantId).finally(() => looking.delete(tenantId));
      looking.set(tenantId, pending);
    }
    return pending;
  }

  return {
    active,
    async changed(tenantId) {
      await looking.get(tenantId)?.catch(() => undefined);
      kept.delete(tenantId);
      await active(tenantId);
    },
  };
}
