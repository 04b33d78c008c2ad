import type { VersionList } from '@catalog/contracts';
import { sineWav } from '@catalog/testing';
import {
  addVersionOf,
  entityAndStandaloneAsset,
  errorOf,
  intentsOf,
  releasedEvents,
  startHarness,
  versionOfAsset,
  type CatalogHarness,
} from './support.js';

/**
 * No transaction of the catalog stays open while it waits for the asset service (decision 0058):
 * an open transaction holds an xid, and every outbox relay and the events feed of the cluster read
 * below the oldest one.
 */
let h: CatalogHarness;
let wav: Uint8Array;

beforeAll(async () => {
  // No grace: the sweeps the tests run take every intent not held by a running transaction; the
  // sweeper's own timer stays out of the way.
  h = await startHarness('catbuscalls', {
    withAssets: true,
    env: { CATALOG_ATTACH_INTENT_GRACE_MS: '0', CATALOG_ATTACH_SWEEP_INTERVAL_MS: '3600000' },
  });
  wav = await sineWav(1);
});

afterAll(async () => {
  await h?.stop();
});

/**
 * Transactions of the catalog service waiting on the service (idle in transaction) while they hold
 * a lock on the attach intents: what a version's creation or the sweeper did across their calls.
 * (Other transactions, e.g. the consumer of asset events between two statements, are no concern here.)
 */
async function catalogTransactionsOpen(): Promise<Array<{ state: string; query: string }>> {
  const result = await h.sql.query(
    `select a.state, a.query from pg_stat_activity a
      where a.datname = current_database() and a.application_name = 'catalog' and a.state like 'idle in transaction%'
        and exists (select 1 from pg_locks l where l.pid = a.pid and l.relation = 'catalog.attach_intents'::regclass)`,
  );
  return result.rows;
}

const attachedEvents = async (assetId: string): Promise<number> =>
  (await h.sql.query("select count(*)::int as n from asset.outbox where resource_id = $1 and type = 'asset.attached'", [assetId])).rows[0]
    .n;

describe('adding a version from an existing asset', () => {
  test('holds no transaction while the asset service attaches, and reserves the asset meanwhile', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset(h, 'Held attach', wav);
    const attach = h.holdNextAttach();
    const pending = addVersionOf(a, entityId, assetId, 'Held');
    try {
      await attach.held;
      expect(await catalogTransactionsOpen()).toEqual([]);
      // The intent is committed and reserves the asset: another version of it is refused at once, unattached.
      const [intent] = await intentsOf(h, assetId);
      expect(intent).toMatchObject({ tenant_id: a.tenantId, source_system: `public-api:${a.keyId}` });
      expect(await versionOfAsset(h, assetId)).toBe(intent!.version_id);
      const rival = errorOf(await addVersionOf(a, entityId, assetId, 'Rival'));
      expect(rival).toMatchObject({ status: 409, code: 'asset_in_use', details: { assetId } });
    } finally {
      attach.release();
    }
    const reply = await pending;
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    const version = reply.body as { id: string; asset: { id: string; status: string } };
    expect(version.asset).toMatchObject({ id: assetId, status: 'ONLINE' });
    expect((await a.ok<VersionList>('listVersions', { params: { id: entityId } })).versions.map((v: { id: string }) => v.id)).toEqual([
      version.id,
    ]);
    expect(await versionOfAsset(h, assetId)).toBe(version.id);
    expect(await intentsOf(h, assetId)).toEqual([]);
    expect(await attachedEvents(assetId)).toBe(1);
    expect(await releasedEvents(h, assetId)).toEqual([]);
  });

  test('a version whose intent the sweeper took during the attach is refused, never written, and its file given back', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset(h, 'Given up', wav);
    const attach = h.holdNextAttach();
    const pending = addVersionOf(a, entityId, assetId, 'Too slow');
    let swept;
    try {
      await attach.held;
      const unwritten = await versionOfAsset(h, assetId);
      expect(unwritten).not.toBeNull();
      // Older than the grace (0 here): the sweeper takes the intent and releases the attached file.
      swept = await h.service.sweepAttachIntents();
      expect(await releasedEvents(h, assetId)).toEqual([{ version_id: unwritten, source_system: `public-api:${a.keyId}` }]);
    } finally {
      attach.release();
    }
    expect(swept).toEqual({ claimed: 1, released: 1, kept: 0 });
    expect(errorOf(await pending)).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect((await a.ok<VersionList>('listVersions', { params: { id: entityId } })).versions).toEqual([]);
    expect(await h.assets(a).ok('getAsset', { params: { id: assetId } })).toMatchObject({
      retention: 'standalone',
      entityId: null,
      expiresAt: expect.any(String),
    });
    expect(await intentsOf(h, assetId)).toEqual([]);
    // The file is free again.
    expect((await addVersionOf(a, entityId, assetId, 'Second try')).ok).toBe(true);
  });
});

describe('the attach-intent sweeper', () => {
  test('holds no transaction while the asset service releases', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset(h, 'Swept', wav);
    // An attach answered late: the asset is left attached to a version that was never written.
    h.answerAttachesLate(1);
    expect(errorOf(await addVersionOf(a, entityId, assetId, 'Timed out'))).toMatchObject({ status: 504 });
    const unwritten = await versionOfAsset(h, assetId);
    expect(await intentsOf(h, assetId)).toEqual([expect.objectContaining({ version_id: unwritten })]);

    const release = h.holdNextRelease();
    const sweep = h.service.sweepAttachIntents();
    try {
      await release.held;
      expect(await catalogTransactionsOpen()).toEqual([]);
      // Claimed: a second sweep meanwhile passes it by.
      expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 0, released: 0, kept: 0 });
    } finally {
      release.release();
    }
    expect(await sweep).toEqual({ claimed: 1, released: 1, kept: 0 });
    expect(await intentsOf(h, assetId)).toEqual([]);
    expect(await versionOfAsset(h, assetId)).toBeNull();
  });
});
