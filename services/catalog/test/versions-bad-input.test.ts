import type { AssetWithUpload, Entity, VersionList } from '@catalog/contracts';
import { errorOf, startHarness, type CatalogHarness, type Caller } from './support.js';

/** createVersion and the version operations refuse bad input with 4xx and the fields in details. */
let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catversionsbad', { withAssets: true, env: { ASSET_MAX_BYTES: String(10 * 1024 * 1024) } });
});

afterAll(async () => {
  await h?.stop();
});

describe('bad inputs', () => {
  let a: Caller;
  let entityId: string;
  beforeAll(async () => {
    a = h.tenant();
    entityId = (await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Song' } })).id;
  });
  const post = (body: unknown) => a.call('createVersion', { params: { id: entityId }, body });
  const upload = { filename: 'x.wav', contentType: 'audio/wav' };

  test('unknown kind: 400 naming the field', async () => {
    const error = errorOf(await post({ source: { upload }, label: 'x', versionType: 'radio_edit', kind: 'SPEECH' }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_body' });
    expect((error.details as { fields: Array<{ path: string }> }).fields.map((f) => f.path)).toContain('/kind');
  });

  test('missing label: 400', async () => {
    const error = errorOf(await post({ source: { upload }, versionType: 'radio_edit' }));
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_body',
      details: { fields: [{ location: 'body', path: '/label', message: 'is required' }] },
    });
  });

  test('a content type of another kind: 415', async () => {
    const error = errorOf(
      await post({
        source: { upload: { filename: 'c.png', contentType: 'image/png' } },
        label: 'x',
        versionType: 'radio_edit',
        kind: 'AUDIO',
      }),
    );
    expect(error).toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
      details: { contentType: 'image/png', kind: 'AUDIO', contentTypeKind: 'ARTWORK' },
    });
  });

  test('a content type no kind accepts: 415', async () => {
    expect(
      errorOf(await post({ source: { upload: { filename: 'a.pdf', contentType: 'application/pdf' } }, label: 'x', versionType: 'other' })),
    ).toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
    });
    // audio/*, but not a format the asset service takes
    expect(
      errorOf(await post({ source: { upload: { filename: 'a.xyz', contentType: 'audio/x-unknown' } }, label: 'x', versionType: 'other' })),
    ).toMatchObject({
      status: 415,
    });
  });

  test('an existing asset of another kind than the one given: 415', async () => {
    const art = await h
      .assets(a)
      .ok<AssetWithUpload>('createAsset', { body: { retention: 'attached', upload: { filename: 'a.png', contentType: 'image/png' } } });
    const error = errorOf(await post({ source: { assetId: art.assetId }, label: 'x', versionType: 'radio_edit', kind: 'AUDIO' }));
    expect(error).toMatchObject({ status: 415, details: { kind: 'AUDIO', contentTypeKind: 'ARTWORK' } });
  });

  test('malformed upload descriptions and sources: 400', async () => {
    const cases: unknown[] = [
      { source: { upload: { contentType: 'audio/wav' } }, label: 'x', versionType: 'radio_edit' },
      { source: { upload: { filename: '', contentType: 'audio/wav' } }, label: 'x', versionType: 'radio_edit' },
      { source: { upload: { filename: 'a/b.wav', contentType: 'audio/wav' } }, label: 'x', versionType: 'radio_edit' },
      { source: { upload: { filename: 'x.wav', contentType: 'audio/wav; rate=44100' } }, label: 'x', versionType: 'radio_edit' },
      { source: { upload: { filename: 'x.wav', contentType: 'audio/wav', size: 0 } }, label: 'x', versionType: 'radio_edit' },
      { source: { upload: { filename: 'x.wav', contentType: 'audio/wav', checksum: 'md5:abc' } }, label: 'x', versionType: 'radio_edit' },
      { source: { upload: { filename: 'x.wav', contentType: 'audio/wav', extra: 1 } }, label: 'x', versionType: 'radio_edit' },
      { source: { upload, assetId: '01900000-0000-7000-8000-000000000000' }, label: 'x', versionType: 'radio_edit' },
      { source: {}, label: 'x', versionType: 'radio_edit' },
      { source: { assetId: 'nope' }, label: 'x', versionType: 'radio_edit' },
      { source: { upload }, label: '', versionType: 'radio_edit' },
      { source: { upload }, label: 'x', versionType: 'b_side' },
      { source: { upload }, label: 'x' },
      { source: { upload }, label: 'x', versionType: 'radio_edit', isPrimary: 'yes' },
    ];
    for (const body of cases) {
      const error = errorOf(await post(body));
      expect([body, error.status, error.code]).toEqual([body, 400, 'invalid_body']);
    }
    expect((await a.ok<VersionList>('listVersions', { params: { id: entityId } })).versions).toEqual([]);
  });

  test('a version type of another kind: 400 with the types of the kind', async () => {
    const error = errorOf(await post({ source: { upload }, label: 'x', versionType: 'cover_art' }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_body', details: { fields: [{ path: '/versionType' }] } });
    expect((error.details as { allowed: string[] }).allowed).toContain('radio_edit');
  });

  test('a declared size over the asset limit: 413', async () => {
    const error = errorOf(await post({ source: { upload: { ...upload, size: 11 * 1024 * 1024 } }, label: 'x', versionType: 'radio_edit' }));
    expect(error).toMatchObject({ status: 413, code: 'payload_too_large' });
  });
});
