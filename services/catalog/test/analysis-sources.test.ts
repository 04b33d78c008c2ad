import type { AppliedCuePointMarkers, Entity, Version } from '@catalog/contracts';
import { eventually, sineWav } from '@catalog/testing';
import { addUploadVersion, errorOf, startHarness, uploadBytes, type CatalogHarness, type Caller, type UploadedVersion } from './support.js';

/**
 * The catalog's internal operations for the analysis service (decisions 0085, 0088):
 * resolving an entity or a version to the ONLINE audio file to analyse, and writing cue points as
 * a version's markers where the entity type asks for it, never over markers set by hand.
 */
let h: CatalogHarness;
let wav: Uint8Array;

beforeAll(async () => {
  h = await startHarness('catanalysis', { withAssets: true });
  wav = await sineWav(2, { sampleRate: 8_000 });
});
afterAll(async () => {
  await h?.stop();
});

async function onlineVersion(a: Caller, entityId: string, options: { isPrimary?: boolean } = {}) {
  const version = (await addUploadVersion(a, entityId, { size: wav.length, ...options })) as { body: UploadedVersion };
  expect(await uploadBytes(h, version.body.upload, wav)).toBeLessThan(300);
  await h.assets(a).ok('confirmAsset', { params: { id: version.body.asset.id } });
  await eventually(async () => {
    const v = await a.ok<Version>('getVersion', { params: { id: entityId, versionId: version.body.id } });
    return v.asset.status === 'ONLINE' ? v : undefined;
  }, 15_000);
  return { versionId: version.body.id, assetId: version.body.asset.id };
}

const resolve = (a: Caller, body: unknown) => a.call('resolveAnalysisSource', { body });

test('an entity resolves to its primary ONLINE audio version, a version to itself, with the DMRN', async () => {
  const a = h.tenant();
  const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Tone', externalReferences: { dmrn: 'DM-TONE' } } });
  expect(errorOf(await resolve(a, { entityId: entity.id }))).toMatchObject({ status: 409, code: 'no_primary_audio_version' });

  const pending = (await addUploadVersion(a, entity.id, { size: wav.length })) as { body: UploadedVersion };
  expect(errorOf(await resolve(a, { entityId: entity.id }))).toMatchObject({ status: 409, code: 'source_not_online' });
  expect(errorOf(await resolve(a, { versionId: pending.body.id }))).toMatchObject({ status: 409, code: 'source_not_online' });

  const other = await onlineVersion(a, entity.id, { isPrimary: true });
  expect(await a.ok('resolveAnalysisSource', { body: { entityId: entity.id } })).toEqual({
    entityId: entity.id,
    versionId: other.versionId,
    assetId: other.assetId,
    dmrn: 'DM-TONE',
  });
  expect(await a.ok('resolveAnalysisSource', { body: { versionId: other.versionId } })).toMatchObject({ versionId: other.versionId });

  const art = (await addUploadVersion(a, entity.id, {
    filename: 'c.png',
    contentType: 'image/png',
    versionType: 'cover_art',
    label: 'Cover',
  })) as {
    body: UploadedVersion;
  };
  expect(errorOf(await resolve(a, { versionId: art.body.id }))).toMatchObject({ status: 415, code: 'source_not_audio' });

  const b = h.tenant();
  expect(errorOf(await resolve(b, { entityId: entity.id }))).toMatchObject({ status: 404, code: 'not_found' });
  expect(errorOf(await resolve(b, { versionId: other.versionId }))).toMatchObject({ status: 404, code: 'not_found' });
  expect(errorOf(await resolve(a, { entityId: entity.id, versionId: other.versionId }))).toMatchObject({
    status: 400,
    code: 'invalid_body',
  });
});

test('cue points become markers only where the entity type asks for it, and never over markers set by hand', async () => {
  const a = h.tenant();
  const entity = await a.ok<Entity>('createEntity', { body: { type: 'jingle', title: 'Cue me' } });
  const { versionId } = await onlineVersion(a, entity.id);
  const markers = [
    { type: 'cue_in', positionMs: 10 },
    { type: 'cue_out', positionMs: 1_990 },
  ];
  const apply = (list: unknown) => a.ok<AppliedCuePointMarkers>('applyCuePointMarkers', { body: { versionId, markers: list } });

  expect(await apply(markers)).toEqual({ outcome: 'not_enabled' });
  await a.ok('putEntityType', { params: { name: 'jingle' }, body: { automaticAnalyses: ['cue_points'], cuePointMarkers: true } });
  expect(await apply(markers)).toEqual({ outcome: 'applied' });
  expect(await apply(markers)).toEqual({ outcome: 'unchanged' });
  expect((await a.ok<Version>('getVersion', { params: { id: entity.id, versionId } })).markers).toEqual(markers);
  const events = await h.outbox({ resourceId: versionId, type: 'markers.updated' });
  expect(events.map((e) => e.data)).toEqual([{ entityId: entity.id, count: 2, types: ['cue_in', 'cue_out'] }]);

  const byHand = [{ type: 'cue_in', positionMs: 500 }];
  await a.ok('putVersionMarkers', { params: { id: entity.id, versionId }, body: { markers: byHand } });
  expect(await apply(markers)).toEqual({ outcome: 'set_by_hand' });
  expect((await a.ok<Version>('getVersion', { params: { id: entity.id, versionId } })).markers).toEqual(byHand);
  expect(errorOf(await h.tenant().call('applyCuePointMarkers', { body: { versionId, markers } }))).toMatchObject({ status: 404 });
});
