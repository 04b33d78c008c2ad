import { jetstreamManager } from '@nats-io/jetstream';
import { connectBus, envelopeFromRow, subjectsFor, type BusEvent, type NatsConnection } from '@catalog/platform';
import { eventually, publishEvent, testInfrastructure, testLogger, untilConsumerSettled } from '@catalog/platform/testing';
import { addUploadVersion, startHarness, type CatalogHarness } from './support.js';

let h: CatalogHarness;
let nc: NatsConnection;

beforeAll(async () => {
  h = await startHarness('catrelease', { withAssets: true });
  nc = await connectBus({ url: testInfrastructure().natsUrl, name: 'catrelease-relay', logger: testLogger() });
});

afterAll(async () => {
  await nc?.drain();
  await h?.stop();
});

const versionOfAsset = async (assetId: string): Promise<string | null> =>
  (await h.sql.query('select version_id from asset.assets where id = $1', [assetId])).rows[0]?.version_id ?? null;

describe('the asset service knows which version a file belongs to', () => {
  test('both sources record the version; its deletion releases the file; a late deletion of the former version leaves the new one its file', async () => {
    const a = h.tenant();
    const entity = await a.ok('createEntity', { body: { type: 'song', title: 'Reused' } });
    const reply = await addUploadVersion(a, entity.id);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    const first = reply.body as any;
    expect(await versionOfAsset(first.asset.id)).toBe(first.id);

    await a.ok('deleteVersion', { params: { id: entity.id, versionId: first.id } });
    const released = await eventually(async () => {
      const asset = await h.assets(a).ok('getAsset', { params: { id: first.asset.id } });
      return asset.retention === 'standalone' ? asset : undefined;
    }, 20_000);
    expect(released).toMatchObject({ entityId: null, status: 'PENDING_UPLOAD', expiresAt: expect.any(String) });
    // The catalog's consumer of asset events (`asset.>`) applies asset.released like the others.
    const subjects = subjectsFor(h.natsPrefix);
    const jsm = await jetstreamManager(nc);
    const releasedSubject = subjects.events('catalog', 'asset.released');
    const releasedMsg = await eventually(async () => (await jsm.streams.getMessage(subjects.eventsStream, { last_by_subj: releasedSubject })) ?? undefined, 20_000);
    await untilConsumerSettled(nc, subjects, 'catalog-asset-events', releasedMsg.seq);
    const state = await h.sql.query('select status, event_seq from catalog.asset_states where asset_id = $1', [first.asset.id]);
    expect(state.rows).toEqual([{ status: 'PENDING_UPLOAD', event_seq: String(releasedMsg.seq) }]);

    const second = await a.ok('createVersion', { params: { id: entity.id }, body: { source: { assetId: first.asset.id }, label: 'Again', versionType: 'radio_edit' } });
    expect(await versionOfAsset(first.asset.id)).toBe(second.id);
    const attached = await h.assets(a).ok('getAsset', { params: { id: first.asset.id } });
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
  test('gives the file back: released if still that version\'s file, so it expires instead of staying attached for good', async () => {
    const a = h.tenant();
    const entity = await a.ok('createEntity', { body: { type: 'song', title: 'Doomed version' } });
    const standalone = await h.assets(a).ok('createAsset', { body: { retention: 'standalone', upload: { filename: 'jingle.mp3', contentType: 'audio/mpeg' } } });
    // A real failure inside the version's transaction after the attach: its version.created event is refused.
    await h.sql.query(`
      create or replace function catalog.refuse_doomed_version() returns trigger language plpgsql as $$
      begin
        if new.type = 'version.created' and new.data->>'entityId' = '${entity.id}' then raise exception 'injected failure'; end if;
        return new;
      end $$;
      create trigger refuse_doomed_version before insert on catalog.outbox for each row execute function catalog.refuse_doomed_version();`);
    let failed: unknown;
    try {
      failed = await a.call('createVersion', { params: { id: entity.id }, body: { source: { assetId: standalone.assetId }, label: 'Doomed', versionType: 'station_intro' } });
    } finally {
      await h.sql.query('drop trigger refuse_doomed_version on catalog.outbox; drop function catalog.refuse_doomed_version()');
    }
    expect(failed).toMatchObject({ ok: false, error: { status: 500 } });
    expect((await a.ok('listVersions', { params: { id: entity.id } })).versions).toEqual([]);

    // The asset service had attached it to the version that was never written; it is standalone again.
    const asset = await h.assets(a).ok('getAsset', { params: { id: standalone.assetId } });
    expect(asset).toMatchObject({ retention: 'standalone', entityId: null, expiresAt: expect.any(String) });
    expect(await versionOfAsset(standalone.assetId)).toBeNull();
    const events = await h.sql.query("select data->>'versionId' as version_id from asset.outbox where resource_id = $1 and type = 'asset.released'", [standalone.assetId]);
    expect(events.rows).toHaveLength(1);

    // And it can be used again.
    const version = await a.ok('createVersion', { params: { id: entity.id }, body: { source: { assetId: standalone.assetId }, label: 'Second try', versionType: 'station_intro' } });
    expect(await versionOfAsset(standalone.assetId)).toBe(version.id);
  });
});
