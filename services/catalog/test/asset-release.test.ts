import type { Asset, CreatedVersion, Entity, VersionList } from '@catalog/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { envelopeFromRow, subjectsFor, type BusEvent, type NatsConnection } from '@catalog/platform';
import { eventually, publishEvent, sineWav, testBus, untilConsumerSettled } from '@catalog/testing';
import {
  addUploadVersion,
  addVersionOf,
  entityAndStandaloneAsset as standaloneAssetIn,
  intentsOf as intentsIn,
  releasedEvents as releasedEventsIn,
  startHarness,
  versionOfAsset as versionIn,
  type CatalogHarness,
  type UploadedVersion,
} from './support.js';

let h: CatalogHarness;
let nc: NatsConnection;
let wav: Uint8Array;

beforeAll(async () => {
  // No grace: the sweeps the tests run take every intent not held by a running transaction. The
  // sweeper's own timer stays out of the way.
  h = await startHarness('catrelease', {
    withAssets: true,
    env: { CATALOG_ATTACH_INTENT_GRACE_MS: '0', CATALOG_ATTACH_SWEEP_INTERVAL_MS: '3600000' },
  });
  nc = await testBus('catrelease-relay');
  wav = await sineWav(1);
});

afterAll(async () => {
  await nc?.drain();
  await h?.stop();
});

const versionOfAsset = (assetId: string) => versionIn(h, assetId);
const intentsOf = (assetId: string) => intentsIn(h, assetId);
const releasedEvents = (assetId: string) => releasedEventsIn(h, assetId);
const entityAndStandaloneAsset = (title: string) => standaloneAssetIn(h, title, wav);

/**
 * Runs `fn` while a trigger on the catalog outbox runs `statement` (plpgsql) inside the
 * transaction of any version of `entityId` being created, when it records version.created: after
 * the version row was inserted and its file attached.
 */
async function whileVersionCreatedRuns<T>(entityId: string, statement: string, fn: () => Promise<T>): Promise<T> {
  await h.sql.query(`
    create or replace function catalog.version_created_hook() returns trigger language plpgsql as $$
    begin
      if new.type = 'version.created' and new.data->>'entityId' = '${entityId}' then ${statement}; end if;
      return new;
    end $$;
    create trigger version_created_hook before insert on catalog.outbox for each row execute function catalog.version_created_hook();`);
  try {
    return await fn();
  } finally {
    await h.sql.query('drop trigger version_created_hook on catalog.outbox; drop function catalog.version_created_hook()');
  }
}

/** A real failure inside the version's transaction after the attach: its version.created event is refused. */
const REFUSE = "raise exception 'injected failure'";

describe('the asset service knows which version a file belongs to', () => {
  test('both sources record the version; its deletion releases the file; a late deletion of the former version leaves the new one its file', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Reused' } });
    const reply = await addUploadVersion(a, entity.id);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    const first = reply.body as UploadedVersion;
    expect(await versionOfAsset(first.asset.id)).toBe(first.id);

    await a.ok('deleteVersion', { params: { id: entity.id, versionId: first.id } });
    const released = await eventually(async () => {
      const asset = await h.assets(a).ok<Asset>('getAsset', { params: { id: first.asset.id } });
      return asset.retention === 'standalone' ? asset : undefined;
    }, 20_000);
    expect(released).toMatchObject({ entityId: null, status: 'PENDING_UPLOAD', expiresAt: expect.any(String) });
    // The catalog's consumer of asset events (`asset.>`) applies asset.released like the others.
    const subjects = subjectsFor(h.natsPrefix);
    const jsm = await jetstreamManager(nc);
    const releasedSubject = subjects.events('catalog', 'asset.released');
    const releasedMsg = await eventually(
      async () => (await jsm.streams.getMessage(subjects.eventsStream, { last_by_subj: releasedSubject })) ?? undefined,
      20_000,
    );
    await untilConsumerSettled(nc, subjects, 'catalog-asset-events', releasedMsg.seq);
    const state = await h.sql.query('select status, event_seq from catalog.asset_states where asset_id = $1', [first.asset.id]);
    expect(state.rows).toEqual([{ status: 'PENDING_UPLOAD', event_seq: String(releasedMsg.seq) }]);

    const second = await a.ok<CreatedVersion>('createVersion', {
      params: { id: entity.id },
      body: { source: { assetId: first.asset.id }, label: 'Again', versionType: 'radio_edit' },
    });
    expect(await versionOfAsset(first.asset.id)).toBe(second.id);
    const attached = await h.assets(a).ok<Asset>('getAsset', { params: { id: first.asset.id } });
    expect(attached).toMatchObject({ retention: 'attached', entityId: entity.id });

    // The first version's deletion, delivered again (as after a relay crash): nothing changes.
    const [deleted] = await h.outbox({ tenantId: a.tenantId, resourceId: first.id, type: 'version.deleted' });
    const event: BusEvent = { ...envelopeFromRow(deleted!), tenantId: a.tenantId };
    await untilConsumerSettled(nc, subjects, 'asset-version-events', await publishEvent(nc, subjects, event));
    expect(await h.assets(a).ok('getAsset', { params: { id: first.asset.id } })).toEqual(attached);
    expect(await versionOfAsset(first.asset.id)).toBe(second.id);
  });
});

describe('a version whose transaction fails after its file was attached', () => {
  test("gives the file back: released if still that version's file, so it expires instead of staying attached for good", async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset('Doomed version');
    const failed = await whileVersionCreatedRuns(entityId, REFUSE, () => addVersionOf(a, entityId, assetId, 'Doomed'));
    expect(failed).toMatchObject({ ok: false, error: { status: 500 } });
    expect((await a.ok<VersionList>('listVersions', { params: { id: entityId } })).versions).toEqual([]);

    // The asset service had attached it to the version that was never written; it is standalone again.
    const asset = await h.assets(a).ok<Asset>('getAsset', { params: { id: assetId } });
    expect(asset).toMatchObject({ retention: 'standalone', entityId: null, expiresAt: expect.any(String) });
    expect(await versionOfAsset(assetId)).toBeNull();
    expect(await releasedEvents(assetId)).toHaveLength(1);
    // The asset service answered, so the attach intent is settled.
    expect(await intentsOf(assetId)).toEqual([]);

    // And it can be used again.
    const version = await a.ok<CreatedVersion>('createVersion', {
      params: { id: entityId },
      body: { source: { assetId }, label: 'Second try', versionType: 'station_intro' },
    });
    expect(await versionOfAsset(assetId)).toBe(version.id);
  });

  test('when the immediate release fails too, the attach intent stays and the sweeper releases the file', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset('Doomed twice');
    h.failAssetReleases(1);
    const failed = await whileVersionCreatedRuns(entityId, REFUSE, () => addVersionOf(a, entityId, assetId, 'Doomed'));
    expect(failed).toMatchObject({ ok: false, error: { status: 500 } });
    expect((await a.ok<VersionList>('listVersions', { params: { id: entityId } })).versions).toEqual([]);

    // Attached to a version that does not exist, not expiring: without the intent, for good.
    const unwritten = await versionOfAsset(assetId);
    expect(unwritten).not.toBeNull();
    expect((await h.sql.query('select id from catalog.versions where id = $1', [unwritten])).rows).toEqual([]);
    expect(await h.assets(a).ok('getAsset', { params: { id: assetId } })).toMatchObject({
      retention: 'attached',
      entityId,
      expiresAt: null,
    });
    expect(await intentsOf(assetId)).toEqual([{ version_id: unwritten, tenant_id: a.tenantId, source_system: `public-api:${a.keyId}` }]);
    expect(await releasedEvents(assetId)).toEqual([]);

    expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 1, released: 1, kept: 0 });
    const asset = await h.assets(a).ok<Asset>('getAsset', { params: { id: assetId } });
    expect(asset).toMatchObject({ retention: 'standalone', entityId: null, expiresAt: expect.any(String) });
    expect(await versionOfAsset(assetId)).toBeNull();
    // Released as the write that made the version: its source system.
    expect(await releasedEvents(assetId)).toEqual([{ version_id: unwritten, source_system: `public-api:${a.keyId}` }]);
    expect(await intentsOf(assetId)).toEqual([]);

    // Usable for a new version; a second sweep changes nothing.
    const version = await a.ok<CreatedVersion>('createVersion', {
      params: { id: entityId },
      body: { source: { assetId }, label: 'Second try', versionType: 'station_intro' },
    });
    expect(await versionOfAsset(assetId)).toBe(version.id);
    expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 0, released: 0, kept: 0 });
    expect(await h.assets(a).ok('getAsset', { params: { id: assetId } })).toMatchObject({
      retention: 'attached',
      entityId,
      expiresAt: null,
    });
    expect(await versionOfAsset(assetId)).toBe(version.id);
    expect(await releasedEvents(assetId)).toHaveLength(1);
  });

  test('a sweep while the asset service does not answer keeps the intent for the next pass', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset('Doomed, asset service away');
    h.failAssetReleases(2);
    await whileVersionCreatedRuns(entityId, REFUSE, () => addVersionOf(a, entityId, assetId, 'Doomed'));
    const unwritten = await versionOfAsset(assetId);
    expect(unwritten).not.toBeNull();

    expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 1, released: 0, kept: 1 });
    expect(await intentsOf(assetId)).toHaveLength(1);
    expect(await versionOfAsset(assetId)).toBe(unwritten);

    expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 1, released: 1, kept: 0 });
    expect(await intentsOf(assetId)).toEqual([]);
    expect(await versionOfAsset(assetId)).toBeNull();
  });

  test('an attach that got no answer and lands after the immediate release is still given back by the sweeper', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset('Attach in flight');
    h.answerAttachesLate(1);
    const failed = await addVersionOf(a, entityId, assetId, 'Timed out');
    expect(failed).toMatchObject({ ok: false, error: { status: 504 } });
    expect((await a.ok<VersionList>('listVersions', { params: { id: entityId } })).versions).toEqual([]);

    // The release found nothing to do; the late attach then bound the asset to the unwritten version.
    const unwritten = await versionOfAsset(assetId);
    expect(unwritten).not.toBeNull();
    expect((await h.sql.query('select id from catalog.versions where id = $1', [unwritten])).rows).toEqual([]);
    expect(await releasedEvents(assetId)).toEqual([]);
    expect(await intentsOf(assetId)).toEqual([{ version_id: unwritten, tenant_id: a.tenantId, source_system: `public-api:${a.keyId}` }]);

    expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 1, released: 1, kept: 0 });
    expect(await h.assets(a).ok('getAsset', { params: { id: assetId } })).toMatchObject({
      retention: 'standalone',
      entityId: null,
      expiresAt: expect.any(String),
    });
    expect(await intentsOf(assetId)).toEqual([]);
  });
});

describe('attach intents', () => {
  test('a version that is written leaves none; nor does one refused before the attach', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset('Written');
    const reply = await addVersionOf(a, entityId, assetId, 'Written');
    expect(reply.ok).toBe(true);
    expect(await intentsOf(assetId)).toEqual([]);

    const refused = await addVersionOf(a, entityId, assetId, 'Same file again');
    expect(refused).toMatchObject({ ok: false, error: { status: 409, code: 'asset_in_use' } });
    expect(await intentsOf(assetId)).toEqual([]);
    expect((await h.sql.query('select count(*)::int as n from catalog.attach_intents where tenant_id = $1', [a.tenantId])).rows).toEqual([
      { n: 0 },
    ]);
  });

  test('the sweep passes by the intent of a version whose transaction is still running', async () => {
    const { a, entityId, assetId } = await entityAndStandaloneAsset('Slow version');
    // The version's transaction waits, after inserting the version, for an advisory lock this session holds.
    const holder = new pg.Client({ connectionString: h.database.url });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(4242)');
      const created = await whileVersionCreatedRuns(entityId, 'perform pg_advisory_xact_lock(4242)', async () => {
        const pending = addVersionOf(a, entityId, assetId, 'Slow');
        let versionId: string;
        try {
          // The version's transaction waits for the lock: it runs, holding its intent (deleted, not
          // committed). The attach came before it (decision 0058).
          await eventually(
            async () =>
              (await h.sql.query("select 1 from pg_locks where locktype = 'advisory' and objid = 4242 and not granted")).rows.length > 0
                ? true
                : undefined,
            10_000,
          );
          versionId = (await versionOfAsset(assetId))!;
          expect(await intentsOf(assetId)).toEqual([
            { version_id: versionId, tenant_id: a.tenantId, source_system: `public-api:${a.keyId}` },
          ]);

          expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 0, released: 0, kept: 0 });
          expect(await versionOfAsset(assetId)).toBe(versionId);
          expect(await releasedEvents(assetId)).toEqual([]);
        } finally {
          // Lets the version's transaction go on (also when a check failed: the trigger is dropped after it).
          await holder.query('select pg_advisory_unlock(4242)');
        }
        return { versionId, reply: await pending };
      });
      expect(created.reply).toMatchObject({ ok: true, body: { id: created.versionId } });
      expect(await intentsOf(assetId)).toEqual([]);
      expect(await h.service.sweepAttachIntents()).toEqual({ claimed: 0, released: 0, kept: 0 });
      expect(await h.assets(a).ok('getAsset', { params: { id: assetId } })).toMatchObject({
        retention: 'attached',
        entityId,
        expiresAt: null,
      });
    } finally {
      await holder.end();
    }
  });
});
