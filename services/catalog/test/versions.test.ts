import type { Asset, AssetWithUpload, CreatedVersion, Entity, Version, VersionList } from '@catalog/contracts';
import { addUploadVersion, errorOf, startHarness, type CatalogHarness, type Caller, type UploadedVersion } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catversions', { withAssets: true, env: { ASSET_MAX_BYTES: String(10 * 1024 * 1024) } });
});

afterAll(async () => {
  await h?.stop();
});

async function song(caller: Caller, extra: Record<string, unknown> = {}): Promise<Entity> {
  return caller.ok<Entity>('createEntity', { body: { type: 'song', title: 'Song', ...extra } });
}

async function created(caller: Caller, entityId: string, options: Parameters<typeof addUploadVersion>[2] = {}): Promise<UploadedVersion> {
  const reply = await addUploadVersion(caller, entityId, options);
  if (!reply.ok) throw new Error(`createVersion failed: ${JSON.stringify(reply.error)}`);
  expect(reply.status).toBe(201);
  return reply.body as UploadedVersion;
}

async function list(caller: Caller, entityId: string, kind?: string): Promise<Version[]> {
  return (await caller.ok<VersionList>('listVersions', { params: { id: entityId }, query: kind ? { kind } : {} })).versions;
}

const primaries = (versions: Version[]): Record<string, string[]> => {
  const byKind: Record<string, string[]> = {};
  for (const v of versions) if (v.isPrimary) (byKind[v.kind] ??= []).push(v.id);
  return byKind;
};

describe('adding versions', () => {
  test('an upload source creates the asset for the entity and returns the version with its upload target', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'DM-V1' } });
    const version = await created(a, entity.id, { filename: 'radio.wav', contentType: 'audio/wav', size: 1234, label: 'Radio edit 3:30' });
    expect(version).toMatchObject({
      entityId: entity.id,
      kind: 'AUDIO',
      label: 'Radio edit 3:30',
      versionType: 'radio_edit',
      isPrimary: true,
      durationMs: null,
      markers: [],
      asset: { status: 'PENDING_UPLOAD', contentType: 'audio/wav', size: 1234, durationMs: null },
      upload: { method: 'PUT', headers: { 'Content-Type': 'audio/wav' } },
    });
    expect(version.upload.url).toContain('/uploads/');
    expect(Date.parse(version.upload.expiresAt)).toBeGreaterThan(Date.now());

    const asset = await h.assets(a).ok<Asset>('getAsset', { params: { id: version.asset.id } });
    expect(asset).toMatchObject({ entityId: entity.id, retention: 'attached', kind: 'AUDIO', status: 'PENDING_UPLOAD' });

    const events = await h.outbox({ tenantId: a.tenantId });
    const versionEvents = events.filter((e) => e.type !== 'entity.created');
    expect(versionEvents.map((e) => [e.type, e.resource_kind, e.resource_id, e.dmrn])).toEqual([
      ['version.created', 'version', version.id, 'DM-V1'],
      ['version.primary_changed', 'entity', entity.id, 'DM-V1'],
    ]);
    expect(versionEvents[0]!.data).toEqual({
      entityId: entity.id,
      kind: 'AUDIO',
      versionType: 'radio_edit',
      assetId: version.asset.id,
      isPrimary: true,
    });
    expect(versionEvents[1]!.data).toEqual({ kind: 'AUDIO', versionId: version.id, previousVersionId: null });
    expect(new Set(versionEvents.map((e) => e.tx_id)).size).toBe(1);
  });

  test('the kind follows the content type; artwork and video are kinds of their own', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const art = await created(a, entity.id, { filename: 'cover.jpg', contentType: 'image/jpeg', label: 'Cover', versionType: 'cover_art' });
    const clip = await created(a, entity.id, {
      filename: 'clip.mp4',
      contentType: 'video/mp4',
      label: 'Clip',
      versionType: 'video_clip',
      kind: 'VIDEO',
    });
    expect([art.kind, art.isPrimary, clip.kind, clip.isPrimary]).toEqual(['ARTWORK', true, 'VIDEO', true]);
    const audio = await created(a, entity.id);
    expect(audio.isPrimary).toBe(true);
  });

  test('the first version of a kind is primary; later ones are not unless isPrimary, which demotes the former primary', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const first = await created(a, entity.id, { label: 'first', isPrimary: false });
    expect(first.isPrimary).toBe(true); // the only version of its kind is its primary
    const second = await created(a, entity.id, { label: 'second', versionType: 'full_length' });
    expect(second.isPrimary).toBe(false);
    const third = await created(a, entity.id, { label: 'third', versionType: 'extended_mix', isPrimary: true });
    expect(third.isPrimary).toBe(true);

    const versions = await list(a, entity.id);
    expect(versions.map((v) => [v.label, v.isPrimary])).toEqual([
      ['first', false],
      ['second', false],
      ['third', true],
    ]);
    const changes = await h.outbox({ resourceId: entity.id, type: 'version.primary_changed' });
    expect(changes.map((e) => e.data)).toEqual([
      { kind: 'AUDIO', versionId: first.id, previousVersionId: null },
      { kind: 'AUDIO', versionId: third.id, previousVersionId: first.id },
    ]);
    const createdEvents = await h.outbox({ tenantId: a.tenantId, type: 'version.created' });
    expect(createdEvents.map((e) => e.data.isPrimary)).toEqual([true, false, true]);
  });

  test('an existing asset of the tenant becomes the file of a version (source.assetId), a standalone one too', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const standalone = await h.assets(a).ok<AssetWithUpload>('createAsset', {
      body: { retention: 'standalone', upload: { filename: 'promo.mp3', contentType: 'audio/mpeg' } },
    });
    const reply = await a.call('createVersion', {
      params: { id: entity.id },
      body: { source: { assetId: standalone.assetId }, label: 'Promo', versionType: 'teaser' },
    });
    expect(reply).toMatchObject({ ok: true, status: 201 });
    const version = (reply as { body: CreatedVersion }).body;
    expect(version).toMatchObject({
      kind: 'AUDIO',
      isPrimary: true,
      asset: { id: standalone.assetId, status: 'PENDING_UPLOAD', contentType: 'audio/mpeg' },
    });
    expect(version.upload).toBeUndefined();
    const asset = await h.assets(a).ok<Asset>('getAsset', { params: { id: standalone.assetId } });
    expect(asset).toMatchObject({ retention: 'attached', entityId: entity.id });

    // One file, one version: using it again (on any entity) is a conflict.
    const other = await song(a);
    const again = errorOf(
      await a.call('createVersion', {
        params: { id: other.id },
        body: { source: { assetId: standalone.assetId }, label: 'Again', versionType: 'teaser' },
      }),
    );
    expect(again).toMatchObject({
      status: 409,
      code: 'asset_in_use',
      details: { assetId: standalone.assetId, versionId: version.id, entityId: entity.id },
    });
  });

  test("another tenant's asset answers like a missing one: 404, and nothing is written", async () => {
    const a = h.tenant();
    const b = h.tenant();
    const foreign = await h
      .assets(b)
      .ok<AssetWithUpload>('createAsset', { body: { retention: 'attached', upload: { filename: 'b.wav', contentType: 'audio/wav' } } });
    const entity = await song(a);
    const reply = errorOf(
      await a.call('createVersion', {
        params: { id: entity.id },
        body: { source: { assetId: foreign.assetId }, label: 'Stolen', versionType: 'radio_edit' },
      }),
    );
    expect(reply).toMatchObject({ status: 404, code: 'not_found' });
    expect(await list(a, entity.id)).toEqual([]);
    expect(await h.outbox({ tenantId: a.tenantId, type: 'version.created' })).toEqual([]);
    const missing = errorOf(
      await a.call('createVersion', {
        params: { id: entity.id },
        body: { source: { assetId: '01900000-0000-7000-8000-000000000000' }, label: 'x', versionType: 'radio_edit' },
      }),
    );
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
  });

  test('an unknown entity, or one of another tenant, is 404 before any asset is created', async () => {
    const a = h.tenant();
    const b = h.tenant();
    const entity = await song(b);
    expect(errorOf(await addUploadVersion(a, entity.id))).toMatchObject({ status: 404, code: 'not_found', message: 'entity not found' });
    expect(errorOf(await addUploadVersion(a, 'not-a-uuid'))).toMatchObject({ status: 404, message: 'entity not found' });
    const assets = await h.sql.query('select 1 from asset.assets where tenant_id = $1', [a.tenantId]);
    expect(assets.rows).toEqual([]);
  });
});

describe('changing, listing and deleting versions', () => {
  test('PATCH label and type records version.updated; isPrimary: true moves the primary; no change, no event', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const first = await created(a, entity.id, { label: 'one' });
    const second = await created(a, entity.id, { label: 'two', versionType: 'clean' });

    const renamed = await a.ok<Version>('updateVersion', {
      params: { id: entity.id, versionId: second.id },
      body: { label: 'two (clean)', versionType: 'radio_edit' },
    });
    expect(renamed).toMatchObject({ id: second.id, label: 'two (clean)', versionType: 'radio_edit', isPrimary: false });
    const promoted = await a.ok<Version>('updateVersion', { params: { id: entity.id, versionId: second.id }, body: { isPrimary: true } });
    expect(promoted.isPrimary).toBe(true);
    expect(primaries(await list(a, entity.id))).toEqual({ AUDIO: [second.id] });
    const same = await a.ok<Version>('updateVersion', {
      params: { id: entity.id, versionId: second.id },
      body: { isPrimary: true, label: 'two (clean)' },
    });
    expect(same).toEqual(promoted);

    expect((await h.outbox({ resourceId: second.id, type: 'version.updated' })).map((e) => e.data)).toEqual([
      { entityId: entity.id, kind: 'AUDIO', changedFields: ['label', 'versionType'] },
    ]);
    expect((await h.outbox({ resourceId: entity.id, type: 'version.primary_changed' })).map((e) => e.data)).toEqual([
      { kind: 'AUDIO', versionId: first.id, previousVersionId: null },
      { kind: 'AUDIO', versionId: second.id, previousVersionId: first.id },
    ]);
  });

  test('PATCH refuses isPrimary false, a type of another kind, and unknown versions', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const version = await created(a, entity.id);
    const patch = (versionId: string, body: unknown) => a.call('updateVersion', { params: { id: entity.id, versionId }, body });
    expect(errorOf(await patch(version.id, { isPrimary: false }))).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(errorOf(await patch(version.id, {}))).toMatchObject({ status: 400 });
    expect(errorOf(await patch(version.id, { versionType: 'lyric_video' }))).toMatchObject({
      status: 400,
      details: { fields: [{ path: '/versionType' }] },
    });
    expect(errorOf(await patch('01900000-0000-7000-8000-000000000000', { label: 'x' }))).toMatchObject({
      status: 404,
      message: 'version not found',
    });
    expect(errorOf(await patch('nope', { label: 'x' }))).toMatchObject({ status: 404, message: 'version not found' });
    const b = h.tenant();
    expect(
      errorOf(await b.call('updateVersion', { params: { id: entity.id, versionId: version.id }, body: { label: 'x' } })),
    ).toMatchObject({ status: 404 });
  });

  test('the listing covers every kind, filters by kind, and shows each file with its upload status', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const audio = await created(a, entity.id);
    const art = await created(a, entity.id, { filename: 'c.png', contentType: 'image/png', label: 'Cover', versionType: 'cover_art' });
    const clip = await created(a, entity.id, { filename: 'v.mp4', contentType: 'video/mp4', label: 'Clip', versionType: 'video_clip' });
    const all = await list(a, entity.id);
    expect(all.map((v) => v.id)).toEqual([audio.id, art.id, clip.id]);
    for (const v of all) {
      expect(Object.keys(v).sort()).toEqual([
        'asset',
        'createdAt',
        'durationMs',
        'entityId',
        'id',
        'isPrimary',
        'kind',
        'label',
        'markers',
        'updatedAt',
        'versionType',
      ]);
      expect(v.asset).toMatchObject({ status: 'PENDING_UPLOAD' });
    }
    expect((await list(a, entity.id, 'ARTWORK')).map((v) => v.id)).toEqual([art.id]);
    expect(await list(a, (await song(a)).id, 'VIDEO')).toEqual([]);
    expect(errorOf(await a.call('listVersions', { params: { id: entity.id }, query: { kind: 'SPEECH' } }))).toMatchObject({
      status: 400,
      code: 'invalid_query',
    });
    expect(errorOf(await a.call('listVersions', { params: { id: '01900000-0000-7000-8000-000000000000' } }))).toMatchObject({
      status: 404,
      message: 'entity not found',
    });
    expect(errorOf(await h.tenant().call('listVersions', { params: { id: entity.id } }))).toMatchObject({ status: 404 });

    const single = await a.ok<Version>('getVersion', { params: { id: entity.id, versionId: art.id } });
    expect(single).toEqual(all[1]);
  });

  test('deleting the primary promotes the newest remaining version of its kind; deleting the last leaves the kind empty', async () => {
    const a = h.tenant();
    const entity = await song(a);
    const v1 = await created(a, entity.id, { label: 'v1' });
    const v2 = await created(a, entity.id, { label: 'v2', versionType: 'full_length' });
    const v3 = await created(a, entity.id, { label: 'v3', versionType: 'instrumental' });
    const art = await created(a, entity.id, { filename: 'c.png', contentType: 'image/png', label: 'Cover', versionType: 'cover_art' });
    const del = (versionId: string) => a.call('deleteVersion', { params: { id: entity.id, versionId } });

    expect(await del(v2.id)).toEqual({ ok: true, status: 204, body: null }); // not primary: nothing else changes
    expect(primaries(await list(a, entity.id))).toEqual({ AUDIO: [v1.id], ARTWORK: [art.id] });
    expect(await del(v1.id)).toMatchObject({ ok: true, status: 204 });
    expect(primaries(await list(a, entity.id))).toEqual({ AUDIO: [v3.id], ARTWORK: [art.id] });
    expect(await del(v3.id)).toMatchObject({ ok: true, status: 204 });
    expect(primaries(await list(a, entity.id))).toEqual({ ARTWORK: [art.id] });
    expect(await list(a, entity.id, 'AUDIO')).toEqual([]);
    expect(errorOf(await del(v3.id))).toMatchObject({ status: 404, message: 'version not found' });

    const deleted = await h.outbox({ tenantId: a.tenantId, type: 'version.deleted' });
    expect(deleted.map((e) => [e.resource_id, e.data.reason])).toEqual([
      [v2.id, 'deleted'],
      [v1.id, 'deleted'],
      [v3.id, 'deleted'],
    ]);
    expect(
      (await h.outbox({ resourceId: entity.id, type: 'version.primary_changed' })).map((e) => e.data).filter((d) => d.kind === 'AUDIO'),
    ).toEqual([
      { kind: 'AUDIO', versionId: v1.id, previousVersionId: null },
      { kind: 'AUDIO', versionId: v3.id, previousVersionId: v1.id },
      { kind: 'AUDIO', versionId: null, previousVersionId: v3.id },
    ]);
    // Afterwards the next version of the kind is its first again, hence primary.
    expect((await created(a, entity.id, { label: 'v4' })).isPrimary).toBe(true);
  });

  test('deleting an entity deletes its versions and records version.deleted for each', async () => {
    const a = h.tenant();
    const entity = await song(a, { externalReferences: { dmrn: 'DM-GONE-V' } });
    const v1 = await created(a, entity.id);
    const v2 = await created(a, entity.id, { filename: 'c.png', contentType: 'image/png', label: 'Cover', versionType: 'cover_art' });
    await a.ok('deleteEntity', { params: { id: entity.id } });
    const events = (await h.outbox({ tenantId: a.tenantId })).filter((e) => e.type === 'version.deleted' || e.type === 'entity.deleted');
    expect(events.map((e) => [e.type, e.resource_id, e.dmrn, e.data.reason])).toEqual([
      ['version.deleted', v1.id, 'DM-GONE-V', 'entity_deleted'],
      ['version.deleted', v2.id, 'DM-GONE-V', 'entity_deleted'],
      ['entity.deleted', entity.id, 'DM-GONE-V', undefined],
    ]);
    const rows = await h.sql.query('select id from catalog.versions where entity_id = $1', [entity.id]);
    expect(rows.rows).toEqual([]);
    // The freed file can become the file of another entity's version.
    const other = await song(a);
    const reused = await a.call('createVersion', {
      params: { id: other.id },
      body: { source: { assetId: v1.asset.id }, label: 'Reused', versionType: 'radio_edit' },
    });
    expect(reused).toMatchObject({ ok: true, status: 201, body: { asset: { id: v1.asset.id } } });
  });
});
