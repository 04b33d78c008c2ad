import { createHash } from 'node:crypto';
import { eventually, sineWav } from '@catalog/testing';
import { apiClient, expectError } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let wav: Buffer;

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  system = await startSystem();
  api = apiClient(system.baseUrl);
  wav = await sineWav(2, { channels: 2 });
});
afterAll(async () => {
  await system.stop();
});

describe('versions through the public API', () => {
  test('rule 2 of part 4: add a version from a new file, upload, confirm; the listing shows it ONLINE with its duration', async () => {
    const { key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
    await api.request('PUT', '/api/v1/catalog/entity-types/song', { key, body: { automaticAnalyses: ['loudness'] } });
    const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Tone', artist: 'Lab' } }))
      .body;

    // (a) POST versions with source.upload, label and versionType
    const created = await api.request('POST', `/api/v1/catalog/entities/${entity.id}/versions`, {
      key,
      body: {
        source: { upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length, checksum: `sha256:${sha256(wav)}` } },
        label: 'Radio edit',
        versionType: 'radio_edit',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      entityId: entity.id,
      kind: 'AUDIO',
      label: 'Radio edit',
      versionType: 'radio_edit',
      isPrimary: true,
      markers: [],
      asset: { status: 'PENDING_UPLOAD', contentType: 'audio/wav', size: wav.length },
      upload: { method: 'PUT' },
    });
    const { upload, asset } = created.body;
    expect(upload.url.startsWith(`${system.baseUrl}/`)).toBe(true);

    // (b) PUT the bytes to upload.url with upload.headers
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: wav });
    expect(put.status).toBeLessThan(300);

    // (c) POST assets/{id}/confirm using asset.id from the response
    const confirmed = await api.request('POST', `/api/v1/catalog/assets/${asset.id}/confirm`, { key });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ id: asset.id, status: 'ONLINE', entityId: entity.id });

    const listed = await eventually(async () => {
      const page = await api.request('GET', `/api/v1/catalog/entities/${entity.id}/versions`, { key });
      return page.body.versions?.[0]?.asset.status === 'ONLINE' ? page.body : undefined;
    }, 15_000);
    expect(listed.versions).toHaveLength(1);
    const [version] = listed.versions;
    expect(version).toMatchObject({ id: created.body.id, isPrimary: true, asset: { id: asset.id, status: 'ONLINE', size: wav.length } });
    expect(Math.abs(version.durationMs - 2000)).toBeLessThanOrEqual(50);
    expect(version.upload).toBeUndefined();

    const download = await fetch(`${system.baseUrl}/api/v1/catalog/assets/${asset.id}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(download.status).toBe(200);
    expect(sha256(new Uint8Array(await download.arrayBuffer()))).toBe(sha256(wav));

    const read = await api.request('GET', `/api/v1/catalog/entities/${entity.id}`, { key });
    expect(read.body.primaryAudioVersion).toEqual({
      id: version.id,
      label: 'Radio edit',
      versionType: 'radio_edit',
      durationMs: version.durationMs,
      assetId: asset.id,
    });

    // The version events reach the tenant's feed, with the analyses the entity type asks for.
    const feed = await eventually(async () => {
      const page = await api.request(
        'GET',
        '/api/v1/catalog/events?types=version.created,version.primary_changed,version.analyses_requested',
        { key },
      );
      return page.body.events?.length === 3 ? page.body.events : undefined;
    }, 15_000);
    expect(feed.map((e: { type: string }) => e.type).sort()).toEqual([
      'version.analyses_requested',
      'version.created',
      'version.primary_changed',
    ]);
  });

  test('markers, PATCH, kind filter and DELETE through the gateway', async () => {
    const { key } = await api.tenant();
    const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Two edits' } })).body;
    const add = (body: Record<string, unknown>) => api.request('POST', `/api/v1/catalog/entities/${entity.id}/versions`, { key, body });
    const first = (
      await add({ source: { upload: { filename: 'a.mp3', contentType: 'audio/mpeg' } }, label: 'Radio', versionType: 'radio_edit' })
    ).body;
    const second = (
      await add({
        source: { upload: { filename: 'b.mp3', contentType: 'audio/mpeg' } },
        label: 'Full',
        versionType: 'full_length',
        isPrimary: true,
      })
    ).body;
    const cover = (
      await add({ source: { upload: { filename: 'c.jpg', contentType: 'image/jpeg' } }, label: 'Cover', versionType: 'cover_art' })
    ).body;
    expect([first.isPrimary, second.isPrimary, cover.isPrimary]).toEqual([true, true, true]);

    const base = `/api/v1/catalog/entities/${entity.id}/versions`;
    expect((await api.request('GET', `${base}?kind=AUDIO`, { key })).body.versions.map((v: any) => [v.id, v.isPrimary])).toEqual([
      [first.id, false],
      [second.id, true],
    ]);
    expectError(await api.request('GET', `${base}?kind=RADIO`, { key }), 400, 'invalid_query');

    const markers = await api.request('PUT', `${base}/${second.id}/markers`, {
      key,
      body: {
        markers: [
          { type: 'cue_in', positionMs: 250 },
          { type: 'cue_out', positionMs: 200 },
        ],
      },
    });
    expectError(markers, 400, 'invalid_markers');
    expect(markers.body.error).toMatchObject({ code: 'invalid_markers', details: { fields: [{ path: '/markers/1/positionMs' }] } });
    const marked = await api.request('PUT', `${base}/${second.id}/markers`, {
      key,
      body: { markers: [{ type: 'cue_in', positionMs: 250 }] },
    });
    expect(marked.body.markers).toEqual([{ type: 'cue_in', positionMs: 250 }]);

    expect((await api.request('PATCH', `${base}/${first.id}`, { key, body: { isPrimary: true, label: 'Radio (2)' } })).body).toMatchObject({
      isPrimary: true,
      label: 'Radio (2)',
    });
    expect((await api.request('DELETE', `${base}/${first.id}`, { key })).status).toBe(204);
    expect((await api.request('GET', `${base}/${second.id}`, { key })).body.isPrimary).toBe(true);

    const other = await api.tenant();
    expectError(await api.request('GET', base, { key: other.key }), 404, 'not_found');
    const stolen = await api.request(
      'POST',
      `/api/v1/catalog/entities/${(await api.request('POST', '/api/v1/catalog/entities', { key: other.key, body: { type: 'song', title: 'B' } })).body.id}/versions`,
      {
        key: other.key,
        body: { source: { assetId: second.asset.id }, label: 'Not mine', versionType: 'radio_edit' },
      },
    );
    expectError(stolen, 404, 'not_found');

    const wrongKind = await add({
      source: { upload: { filename: 'x.png', contentType: 'image/png' } },
      label: 'x',
      versionType: 'radio_edit',
      kind: 'AUDIO',
    });
    expectError(wrongKind, 415, 'unsupported_media_type');
    const malformed = await add({ source: { upload: { filename: 'x.wav' } }, label: 'x', versionType: 'radio_edit' });
    expectError(malformed, 400, 'invalid_body');
  });

  test('the OpenAPI document lists the version operations', async () => {
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/catalog/entities/{id}/versions',
        '/api/v1/catalog/entities/{id}/versions/{versionId}',
        '/api/v1/catalog/entities/{id}/versions/{versionId}/markers',
      ]),
    );
  });
});
