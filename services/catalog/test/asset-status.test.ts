import type { AssetWithUpload, CreatedVersion, Entity, Version, VersionList } from '@catalog/contracts';
import { inTenantTransaction, newId, type BusEvent } from '@catalog/platform';
import { eventually, sineWav } from '@catalog/testing';
import { applyAssetEvent } from '../src/versions/consumers/asset-events.js';
import { recordAssetSnapshot } from '../src/versions/persistence/asset-states.js';
import {
  addUploadVersion,
  errorOf,
  startHarness,
  uploadBytes,
  type CatalogHarness,
  type Caller,
  type EntityPage,
  type UploadedVersion,
} from './support.js';

let h: CatalogHarness;
let wav: Uint8Array;

beforeAll(async () => {
  h = await startHarness('catassetstatus', { withAssets: true });
  wav = await sineWav(2);
});

afterAll(async () => {
  await h?.stop();
});

async function versionOf(caller: Caller, entityId: string, versionId: string): Promise<Version> {
  return caller.ok<Version>('getVersion', { params: { id: entityId, versionId } });
}

/** Adds an AUDIO version from an upload, sends the bytes and confirms them with the asset service. */
async function onlineAudioVersion(
  caller: Caller,
  entityId: string,
  options: { isPrimary?: boolean; label?: string } = {},
): Promise<UploadedVersion> {
  const reply = await addUploadVersion(caller, entityId, { size: wav.length, ...options });
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  const version = reply.body as UploadedVersion;
  expect(await uploadBytes(h, version.upload, wav)).toBeLessThan(300);
  await h.assets(caller).ok('confirmAsset', { params: { id: version.asset.id } });
  return version;
}

async function untilStatus(caller: Caller, entityId: string, versionId: string, status: string): Promise<Version> {
  return eventually(async () => {
    const version = await versionOf(caller, entityId, versionId);
    return version.asset.status === status ? version : undefined;
  }, 15_000);
}

describe('the upload status of versions follows asset events', () => {
  test('after confirmation the listing shows the file ONLINE with its size and duration, and the entity its primary audio version', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Tone', externalReferences: { dmrn: 'DM-TONE' } } });
    const version = await onlineAudioVersion(a, entity.id, { label: 'Radio edit' });
    expect(version.asset.status).toBe('PENDING_UPLOAD');

    const online = await untilStatus(a, entity.id, version.id, 'ONLINE');
    expect(online.asset).toEqual({
      id: version.asset.id,
      status: 'ONLINE',
      contentType: 'audio/wav',
      size: wav.length,
      durationMs: expect.any(Number),
    });
    expect(Math.abs(online.durationMs! - 2000)).toBeLessThanOrEqual(50);
    expect(online.durationMs).toBe(online.asset.durationMs);
    const [listed] = (await a.ok<VersionList>('listVersions', { params: { id: entity.id } })).versions;
    expect(listed).toEqual(online);

    const expected = {
      id: version.id,
      label: 'Radio edit',
      versionType: 'radio_edit',
      durationMs: online.durationMs,
      assetId: version.asset.id,
    };
    expect((await a.ok<Entity>('getEntity', { params: { id: entity.id } })).primaryAudioVersion).toEqual(expected);
    const page = await a.ok<EntityPage>('listEntities', {});
    expect(page.entities.map((e) => e.primaryAudioVersion)).toEqual([expected]);
  });

  test('primaryAudioVersion is null while the primary audio file is not ONLINE, even when another audio version is', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Pending primary' } });
    const first = await onlineAudioVersion(a, entity.id);
    await untilStatus(a, entity.id, first.id, 'ONLINE');
    expect((await a.ok<Entity>('getEntity', { params: { id: entity.id } })).primaryAudioVersion).toMatchObject({ id: first.id });
    const pending = await addUploadVersion(a, entity.id, { label: 'new primary, not uploaded', isPrimary: true });
    expect(pending).toMatchObject({ ok: true });
    expect((await a.ok<Entity>('getEntity', { params: { id: entity.id } })).primaryAudioVersion).toBeNull();
    // PATCH responses show it too.
    const patched = await a.ok<Entity>('updateEntity', { params: { id: entity.id }, body: { title: 'Pending primary (2)' } });
    expect(patched.primaryAudioVersion).toBeNull();
    await a.ok('updateVersion', { params: { id: entity.id, versionId: first.id }, body: { isPrimary: true } });
    expect((await a.ok<Entity>('updateEntity', { params: { id: entity.id }, body: { title: 'back' } })).primaryAudioVersion).toMatchObject({
      id: first.id,
    });
  });

  test('a failed confirmation shows the file FAILED', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Not audio' } });
    const noise = new Uint8Array(256).fill(7);
    const reply = await addUploadVersion(a, entity.id, { size: noise.length });
    const version = (reply as { body: UploadedVersion }).body;
    expect(await uploadBytes(h, version.upload, noise)).toBeLessThan(300);
    expect(errorOf(await h.assets(a).call('confirmAsset', { params: { id: version.asset.id } }))).toMatchObject({
      status: 409,
      code: 'asset_failed',
    });
    const failed = await untilStatus(a, entity.id, version.id, 'FAILED');
    expect(failed).toMatchObject({ durationMs: null, isPrimary: true });
    expect((await a.ok<Entity>('getEntity', { params: { id: entity.id } })).primaryAudioVersion).toBeNull();
  });
});

describe('automatic analyses', () => {
  test("an AUDIO version whose file comes ONLINE requests the entity type's automatic analyses, once", async () => {
    const a = h.tenant();
    await a.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['tempo', 'loudness'] } });
    const entity = await a.ok<Entity>('createEntity', {
      body: { type: 'song', title: 'Analyse me', externalReferences: { dmrn: 'DM-AN' } },
    });
    const version = await onlineAudioVersion(a, entity.id);
    await untilStatus(a, entity.id, version.id, 'ONLINE');
    const requested = await eventually(async () => {
      const rows = await h.outbox({ resourceId: version.id, type: 'version.analyses_requested' });
      return rows.length > 0 ? rows : undefined;
    });
    expect(requested).toHaveLength(1);
    expect(requested[0]).toMatchObject({
      resource_kind: 'version',
      dmrn: 'DM-AN',
      source_system: `public-api:${a.keyId}`,
      data: { entityId: entity.id, assetId: version.asset.id, entityType: 'song', analysisTypes: ['loudness', 'tempo'] },
    });
    // A second confirmation (idempotent at the asset service) and later asset events request nothing more.
    await h.assets(a).ok('confirmAsset', { params: { id: version.asset.id } });
    await a.call('createVersion', {
      params: { id: entity.id },
      body: { source: { assetId: version.asset.id }, label: 'dup', versionType: 'other' },
    });
    await h.settled();
    expect(await h.outbox({ resourceId: version.id, type: 'version.analyses_requested' })).toHaveLength(1);
  });

  test('no automatic analyses on the entity type: nothing is requested; ARTWORK never requests', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'jingle', title: 'Station ID' } });
    const version = await onlineAudioVersion(a, entity.id);
    await untilStatus(a, entity.id, version.id, 'ONLINE');
    const { rows } = await h.sql.query('select analyses_checked_at from catalog.versions where id = $1', [version.id]);
    expect(rows[0].analyses_checked_at).not.toBeNull();
    expect(await h.outbox({ tenantId: a.tenantId, type: 'version.analyses_requested' })).toEqual([]);

    await a.ok('putEntityType', { params: { name: 'jingle' }, body: { automaticAnalyses: ['loudness'] } });
    const cover = await a.ok<CreatedVersion>('createVersion', {
      params: { id: entity.id },
      body: { source: { upload: { filename: 'c.png', contentType: 'image/png', size: 8 } }, label: 'Cover', versionType: 'cover_art' },
    });
    await uploadBytes(h, cover.upload!, new Uint8Array(8));
    await h.assets(a).ok('confirmAsset', { params: { id: cover.asset.id } });
    await untilStatus(a, entity.id, cover.id, 'ONLINE');
    expect(await h.outbox({ tenantId: a.tenantId, type: 'version.analyses_requested' })).toEqual([]);
  });

  test('adding a version from an asset that is already ONLINE requests the analyses with the version', async () => {
    const a = h.tenant();
    await a.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['key'] } });
    const standalone = await h.assets(a).ok<AssetWithUpload>('createAsset', {
      body: { retention: 'standalone', upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length } },
    });
    await uploadBytes(h, standalone.upload, wav);
    await h.assets(a).ok('confirmAsset', { params: { id: standalone.assetId } });
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'From a file' } });
    const version = await a.ok<CreatedVersion>('createVersion', {
      params: { id: entity.id },
      body: { source: { assetId: standalone.assetId }, label: 'Analysed first', versionType: 'full_length' },
    });
    expect(version).toMatchObject({ isPrimary: true, asset: { status: 'ONLINE' }, durationMs: expect.any(Number) });
    const events = await h.outbox({ tenantId: a.tenantId });
    const created = events.find((e) => e.type === 'version.created')!;
    const requested = events.filter((e) => e.type === 'version.analyses_requested');
    expect(requested).toHaveLength(1);
    expect(requested[0]!.tx_id).toBe(created.tx_id);
    expect(requested[0]!.data).toMatchObject({ analysisTypes: ['key'], assetId: standalone.assetId });
    expect((await a.ok<Entity>('getEntity', { params: { id: entity.id } })).primaryAudioVersion).toMatchObject({ id: version.id });
  });
});

describe('applying asset events', () => {
  function assetEvent(tenantId: string, assetId: string, data: Record<string, unknown>): BusEvent {
    return {
      id: newId(),
      tenantId,
      type: 'asset.confirmed',
      occurredAt: new Date().toISOString(),
      product: 'catalog',
      resourceKind: 'asset',
      resourceId: assetId,
      dmrn: null,
      sourceSystem: 'public-api:test',
      batchId: newId(),
      schemaVersion: 1,
      data: { retention: 'attached', entityId: null, ...data },
    };
  }
  const facts = { status: 'ONLINE', kind: 'AUDIO', contentType: 'audio/wav', size: 10, durationMs: 1000 };

  test('by stream sequence: a redelivery or an older event changes nothing; malformed ones are ignored', async () => {
    const tenantId = newId();
    const assetId = newId();
    const db = h.service.database.db;
    const stream = '2025-01-01T00:00:00.000Z';
    const at = (seq: number, incarnation = stream) => ({ stream: incarnation, seq });
    const seq = 1_000_000_000;
    expect(await applyAssetEvent(db, assetEvent(tenantId, assetId, facts), at(seq))).toBe('applied');
    expect(await applyAssetEvent(db, assetEvent(tenantId, assetId, facts), at(seq))).toBe('stale');
    expect(await applyAssetEvent(db, assetEvent(tenantId, assetId, { ...facts, status: 'PENDING_UPLOAD' }), at(seq - 1))).toBe('stale');
    expect(await applyAssetEvent(db, assetEvent(tenantId, assetId, { ...facts, status: 'EXPIRED' }), at(seq + 1))).toBe('applied');
    const states = () =>
      h.sql.query('select status, event_stream, event_seq from catalog.asset_states where asset_id = $1', [assetId]).then((r) => r.rows);
    expect(await states()).toEqual([{ status: 'EXPIRED', event_stream: stream, event_seq: String(seq + 1) }]);
    // A recreated stream starts its sequences again: its events are newer whatever their number.
    // (Event times here are "now": later than any answer recorded before.)
    expect(
      await applyAssetEvent(db, assetEvent(tenantId, assetId, { ...facts, status: 'ONLINE' }), at(3, '2025-02-01T00:00:00.000Z')),
    ).toBe('applied');
    expect(await states()).toEqual([{ status: 'ONLINE', event_stream: '2025-02-01T00:00:00.000Z', event_seq: '3' }]);
    expect(await applyAssetEvent(db, assetEvent(tenantId, assetId, { ...facts, status: 'GONE' }), at(seq + 2))).toBe('ignored');
    expect(await applyAssetEvent(db, { ...assetEvent(tenantId, assetId, facts), resourceKind: 'entity' }, at(seq + 3))).toBe('ignored');
  });

  test('an answer of the asset service replaces what older events said, and gives way to events written after it', async () => {
    const tenantId = newId();
    const assetId = newId();
    const db = h.service.database.db;
    const stream = '2025-03-01T00:00:00.000Z';
    const event = (status: string, occurredAt: Date) => ({
      ...assetEvent(tenantId, assetId, { ...facts, status }),
      occurredAt: occurredAt.toISOString(),
    });
    const t0 = new Date('2025-03-01T10:00:00.000Z');
    const answerAt = new Date('2025-03-01T10:00:05.000Z');
    const status = () =>
      h.sql.query('select status from catalog.asset_states where asset_id = $1', [assetId]).then((r) => r.rows[0]?.status);

    expect(await applyAssetEvent(db, event('PENDING_UPLOAD', t0), { stream, seq: 10 })).toBe('applied');
    const snapshot = (s: string, at: Date) =>
      inTenantTransaction(db, tenantId, (trx) => recordAssetSnapshot(trx, tenantId, assetId, { ...facts, status: s } as never, at));
    await snapshot('ONLINE', answerAt);
    expect(await status()).toBe('ONLINE');
    await snapshot('PENDING_UPLOAD', t0); // an older answer changes nothing
    expect(await status()).toBe('ONLINE');
    // The event of the write the answer already showed (written before it) changes nothing…
    expect(await applyAssetEvent(db, event('ONLINE', new Date('2025-03-01T10:00:04.000Z')), { stream, seq: 11 })).toBe('stale');
    // …a later one does, and from then on the stream order rules again.
    expect(await applyAssetEvent(db, event('EXPIRED', new Date('2025-03-01T10:00:06.000Z')), { stream, seq: 12 })).toBe('applied');
    expect(await applyAssetEvent(db, event('ONLINE', new Date('2025-03-01T10:00:07.000Z')), { stream, seq: 11 })).toBe('stale');
    expect(await status()).toBe('EXPIRED');
  });
});
