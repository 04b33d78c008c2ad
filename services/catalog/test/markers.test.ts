import type { CreatedVersion, Entity, Version, VersionList } from '@catalog/contracts';
import { eventually, sineWav } from '@catalog/testing';
import { validateMarkers } from '../src/versions/domain/markers.js';
import { addUploadVersion, errorOf, startHarness, uploadBytes, type CatalogHarness, type Caller, type UploadedVersion } from './support.js';

describe('marker rules', () => {
  const audio = (durationMs: number | null) => ({ kind: 'AUDIO' as const, durationMs });
  const fields = (run: () => unknown): Array<{ path: string; message: string }> => {
    try {
      run();
    } catch (error) {
      return ((error as { details?: { fields?: Array<{ path: string; message: string }> } }).details?.fields ?? []).map(
        ({ path, message }) => ({ path, message }),
      );
    }
    throw new Error('expected the markers to be refused');
  };

  test('a valid set comes back in position order', () => {
    const markers = validateMarkers(
      [
        { type: 'cue_out', positionMs: 180_000 },
        { type: 'custom', positionMs: 60_000, label: 'vocal in' },
        { type: 'cue_in', positionMs: 500 },
        { type: 'intro_end', positionMs: 15_000 },
        { type: 'hook_start', positionMs: 45_000 },
        { type: 'hook_end', positionMs: 55_000 },
        { type: 'outro_start', positionMs: 170_000 },
        { type: 'segue', positionMs: 175_000 },
        { type: 'custom', positionMs: 60_000, label: 'drop' },
      ],
      audio(181_000),
    );
    expect(markers.map((m) => m.type)).toEqual([
      'cue_in',
      'intro_end',
      'hook_start',
      'hook_end',
      'custom',
      'custom',
      'outro_start',
      'segue',
      'cue_out',
    ]);
    expect(markers.filter((m) => m.type === 'custom').map((m) => m.label)).toEqual(['drop', 'vocal in']);
    expect(validateMarkers([], audio(null))).toEqual([]);
  });

  test('positions after the end of the file are refused; without a known duration only the order is checked', () => {
    expect(fields(() => validateMarkers([{ type: 'cue_out', positionMs: 2_001 }], audio(2_000)))).toEqual([
      { path: '/markers/0/positionMs', message: 'must not be after the end of the file (2000 ms)' },
    ]);
    expect(validateMarkers([{ type: 'cue_out', positionMs: 2_000 }], audio(2_000))).toHaveLength(1);
    expect(validateMarkers([{ type: 'cue_out', positionMs: 2_001 }], audio(null))).toHaveLength(1);
  });

  test('singular types once, custom with a label, cue and hook order, everything between cue_in and cue_out', () => {
    expect(
      fields(() =>
        validateMarkers(
          [
            { type: 'cue_in', positionMs: 1_000 },
            { type: 'cue_in', positionMs: 2_000 },
            { type: 'custom', positionMs: 3_000 },
            { type: 'cue_out', positionMs: 900 },
            { type: 'hook_start', positionMs: 5_000 },
            { type: 'intro_end', positionMs: 500 },
          ],
          audio(null),
        ),
      ),
    ).toEqual([
      { path: '/markers/1/type', message: 'only one cue_in marker is allowed' },
      { path: '/markers/2/label', message: 'is required for a custom marker' },
      { path: '/markers/3/positionMs', message: 'must be after cue_in (1000 ms)' },
      { path: '/markers/4/type', message: 'hook_start needs a hook_end marker' },
      { path: '/markers/2/positionMs', message: 'must not be after cue_out (900 ms)' },
      { path: '/markers/4/positionMs', message: 'must not be after cue_out (900 ms)' },
      { path: '/markers/5/positionMs', message: 'must not be before cue_in (1000 ms)' },
    ]);
    expect(
      fields(() =>
        validateMarkers(
          [
            { type: 'hook_start', positionMs: 10 },
            { type: 'hook_end', positionMs: 10 },
          ],
          audio(null),
        ),
      ),
    ).toEqual([{ path: '/markers/1/positionMs', message: 'must be after hook_start (10 ms)' }]);
    expect(
      fields(() =>
        validateMarkers(
          [
            { type: 'outro_start', positionMs: 10 },
            { type: 'intro_end', positionMs: 20 },
          ],
          audio(null),
        ),
      ),
    ).toEqual([{ path: '/markers/0/positionMs', message: 'must be at or after intro_end (20 ms)' }]);
    expect(
      validateMarkers(
        [
          { type: 'outro_start', positionMs: 20 },
          { type: 'intro_end', positionMs: 20 },
        ],
        audio(null),
      ),
    ).toHaveLength(2);
  });

  test('ARTWORK versions have no markers', () => {
    expect(() => validateMarkers([{ type: 'cue_in', positionMs: 0 }], { kind: 'ARTWORK', durationMs: null })).toThrow(
      'ARTWORK versions have no markers',
    );
    expect(validateMarkers([], { kind: 'ARTWORK', durationMs: null })).toEqual([]);
  });
});

describe('PUT markers', () => {
  let h: CatalogHarness;
  let wav: Uint8Array;
  beforeAll(async () => {
    h = await startHarness('catmarkers', { withAssets: true });
    wav = await sineWav(2);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const put = (caller: Caller, entityId: string, versionId: string, markers: unknown) =>
    caller.call('putVersionMarkers', { params: { id: entityId, versionId }, body: { markers } });

  test('markers are checked against the duration of the confirmed file, replaced as a set, and listed', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Cue me', externalReferences: { dmrn: 'DM-CUE' } } });
    const version = (await addUploadVersion(a, entity.id, { size: wav.length })) as { body: UploadedVersion };
    await uploadBytes(h, version.body.upload, wav);
    await h.assets(a).ok('confirmAsset', { params: { id: version.body.asset.id } });
    const durationMs: number = await eventually(async () => {
      const v = await a.ok<Version>('getVersion', { params: { id: entity.id, versionId: version.body.id } });
      return v.asset.status === 'ONLINE' ? v.durationMs! : undefined; // an ONLINE audio file has its duration
    }, 15_000);

    const tooLate = errorOf(
      await put(a, entity.id, version.body.id, [
        { type: 'cue_in', positionMs: 100 },
        { type: 'cue_out', positionMs: durationMs + 1 },
      ]),
    );
    expect(tooLate).toMatchObject({
      status: 400,
      code: 'invalid_markers',
      details: {
        durationMs,
        fields: [{ location: 'body', path: '/markers/1/positionMs', message: `must not be after the end of the file (${durationMs} ms)` }],
      },
    });

    const set = await a.ok<Version>('putVersionMarkers', {
      params: { id: entity.id, versionId: version.body.id },
      body: {
        markers: [
          { type: 'cue_out', positionMs: durationMs },
          { type: 'cue_in', positionMs: 100 },
          { type: 'intro_end', positionMs: 400, label: 'ramp' },
        ],
      },
    });
    expect(set.markers).toEqual([
      { type: 'cue_in', positionMs: 100 },
      { type: 'intro_end', positionMs: 400, label: 'ramp' },
      { type: 'cue_out', positionMs: durationMs },
    ]);
    const [listed] = (await a.ok<VersionList>('listVersions', { params: { id: entity.id } })).versions;
    expect(listed!.markers).toEqual(set.markers);

    // The same set again writes nothing; another set replaces it.
    expect(
      await a.ok('putVersionMarkers', {
        params: { id: entity.id, versionId: version.body.id },
        body: { markers: [...set.markers].reverse() },
      }),
    ).toEqual(set);
    const replaced = await a.ok<Version>('putVersionMarkers', {
      params: { id: entity.id, versionId: version.body.id },
      body: { markers: [{ type: 'segue', positionMs: 1500 }] },
    });
    expect(replaced.markers).toEqual([{ type: 'segue', positionMs: 1500 }]);
    const cleared = await a.ok<Version>('putVersionMarkers', {
      params: { id: entity.id, versionId: version.body.id },
      body: { markers: [] },
    });
    expect(cleared.markers).toEqual([]);

    const events = await h.outbox({ resourceId: version.body.id, type: 'markers.updated' });
    expect(events.map((e) => [e.dmrn, e.data])).toEqual([
      ['DM-CUE', { entityId: entity.id, count: 3, types: ['cue_in', 'intro_end', 'cue_out'] }],
      ['DM-CUE', { entityId: entity.id, count: 1, types: ['segue'] }],
      ['DM-CUE', { entityId: entity.id, count: 0, types: [] }],
    ]);
  });

  test('bad marker bodies are 400; unknown versions 404; artwork 400', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'x' } });
    const version = ((await addUploadVersion(a, entity.id)) as { body: UploadedVersion }).body;
    const cases: unknown[] = [
      [{ type: 'drop', positionMs: 1 }],
      [{ type: 'cue_in', positionMs: -1 }],
      [{ type: 'cue_in', positionMs: 1.5 }],
      [{ type: 'cue_in' }],
      [{ type: 'cue_in', positionMs: 1, extra: true }],
      Array.from({ length: 101 }, (_, i) => ({ type: 'custom', positionMs: i, label: `m${i}` })),
    ];
    for (const markers of cases)
      expect(errorOf(await put(a, entity.id, version.id, markers))).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(
      errorOf(
        await put(a, entity.id, version.id, [
          { type: 'cue_in', positionMs: 5 },
          { type: 'cue_out', positionMs: 5 },
        ]),
      ),
    ).toMatchObject({
      status: 400,
      code: 'invalid_markers',
    });
    expect(errorOf(await put(a, entity.id, '01900000-0000-7000-8000-000000000000', []))).toMatchObject({
      status: 404,
      message: 'version not found',
    });
    expect(errorOf(await put(h.tenant(), entity.id, version.id, []))).toMatchObject({ status: 404 });
    const cover = await a.ok<CreatedVersion>('createVersion', {
      params: { id: entity.id },
      body: { source: { upload: { filename: 'c.png', contentType: 'image/png' } }, label: 'Cover', versionType: 'cover_art' },
    });
    expect(errorOf(await put(a, entity.id, cover.id, [{ type: 'cue_in', positionMs: 0 }]))).toMatchObject({
      status: 400,
      code: 'markers_not_supported',
    });
    expect(await h.outbox({ tenantId: a.tenantId, type: 'markers.updated' })).toEqual([]);
  });
});
