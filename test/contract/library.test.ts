import { createHash } from 'node:crypto';
import { newId, subjectsFor } from '@catalog/platform';
import { eventually, publishEvent, sineWav, testBus, testBusEvent } from '@catalog/testing';
import { apiClient, type ApiResponse, confirmUpload, expectError } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/** Issue 14 through the gateway: the library's tracks follow the catalog, its feed is its own. */
let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let wav: Buffer;

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const BOTH = { products: ['catalog', 'library'], permissions: ['catalog:api', 'library:api'] };

beforeAll(async () => {
  system = await startSystem();
  api = apiClient(system.baseUrl);
  wav = await sineWav(1);
});
afterAll(() => system.stop());

/** Adds an AUDIO version from a new upload; `confirm` uploads and confirms its file. */
async function addAudio(key: string, entityId: string, options: { label?: string; isPrimary?: boolean; confirm?: boolean } = {}) {
  const created = await api.request('POST', `/api/v1/catalog/entities/${entityId}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length, checksum: `sha256:${sha256(wav)}` } },
      label: options.label ?? 'Radio edit',
      versionType: 'radio_edit',
      ...(options.isPrimary === undefined ? {} : { isPrimary: options.isPrimary }),
    },
  });
  expect(created.status).toBe(201);
  if (options.confirm !== false) {
    expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav })).status).toBeLessThan(
      300,
    );
    expect((await confirmUpload(api, key, created.body.asset.id)).status).toBe(200);
  }
  return created.body;
}

async function libraryFeed(
  key: string,
): Promise<Array<{ type: string; resourceId: string; product: string; data: Record<string, unknown> }>> {
  const events = [];
  let after: string | null = null;
  do {
    const page: ApiResponse = await api.request('GET', `/api/v1/library/events${after ? `?after=${after}` : ''}`, { key });
    expect(page.status).toBe(200);
    events.push(...page.body.events);
    after = page.body.hasMore ? page.body.nextCursor : null;
  } while (after);
  return events;
}

test('a song enters the library once its primary audio file is ONLINE, changes with the catalog, and leaves when the primary goes', async () => {
  const { key } = await api.tenant(BOTH);
  const entity = (
    await api.request('POST', '/api/v1/catalog/entities', {
      key,
      body: { type: 'song', title: 'Café del Mar', artist: 'Énergie Trio', externalReferences: { dmrn: 'DMRN-000123' } },
    })
  ).body;
  expect(entity.id).toBeDefined();
  // Not a track yet: no audio at all, then an audio version whose file is not uploaded.
  const pending = await addAudio(key, entity.id, { confirm: false });
  expect((await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key })).status).toBe(404);

  const version = await addAudio(key, entity.id, { label: 'Album', isPrimary: true });
  const track = await eventually(async () => {
    const read = await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key });
    return read.status === 200 ? read.body : undefined;
  }, 15_000);
  expect(track).toMatchObject({
    entityId: entity.id,
    entityType: 'song',
    title: 'Café del Mar',
    artist: 'Énergie Trio',
    externalReferences: { dmrn: 'DMRN-000123' },
    audioVersion: { id: version.id, label: 'Album', versionType: 'radio_edit', assetId: version.asset.id },
    versions: {
      AUDIO: {
        id: version.id,
        markers: [],
        asset: { id: version.asset.id, status: 'ONLINE' },
        downloadPath: `/api/v1/catalog/assets/${version.asset.id}/download`,
      },
      ARTWORK: null,
      VIDEO: null,
    },
    analysis: { tempo: null, key: null, loudness: null, cuePoints: null, waveform: { available: false } },
  });
  expect(Math.abs(track.durationMs - 1000)).toBeLessThanOrEqual(50);
  // The download path works with the catalog key.
  const download = await fetch(`${system.baseUrl}${track.versions.AUDIO.downloadPath}`, { headers: { authorization: `Bearer ${key}` } });
  expect(download.status).toBe(200);
  await download.arrayBuffer();

  // Type-ahead search, accents and case ignored.
  const found = await api.request('GET', `/api/v1/library/tracks?q=${encodeURIComponent('cafe ENER')}`, { key });
  expect(found.body.tracks.map((t: { entityId: string }) => t.entityId)).toEqual([entity.id]);

  // A catalog change updates the track (track.updated names the fields).
  await api.request('PATCH', `/api/v1/catalog/entities/${entity.id}`, { key, body: { title: 'Cafe del Mar (Remix)' } });
  await api.request('PUT', `/api/v1/catalog/entities/${entity.id}/versions/${version.id}/markers`, {
    key,
    body: { markers: [{ type: 'cue_in', positionMs: 120 }] },
  });
  await eventually(async () => {
    const read = await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key });
    return read.body.title === 'Cafe del Mar (Remix)' && read.body.versions.AUDIO.markers.length === 1 ? true : undefined;
  }, 15_000);

  // Demoting the only ONLINE primary (another, not uploaded, version becomes primary) removes the track.
  expect(
    (await api.request('PATCH', `/api/v1/catalog/entities/${entity.id}/versions/${pending.id}`, { key, body: { isPrimary: true } })).status,
  ).toBe(200);
  await eventually(
    async () => ((await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key })).status === 404 ? true : undefined),
    15_000,
  );
  // Back, then deleting the primary audio version with the entity removes it again.
  await api.request('PATCH', `/api/v1/catalog/entities/${entity.id}/versions/${version.id}`, { key, body: { isPrimary: true } });
  await eventually(
    async () => ((await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key })).status === 200 ? true : undefined),
    15_000,
  );
  expect((await api.request('DELETE', `/api/v1/catalog/entities/${entity.id}`, { key })).status).toBe(204);
  await eventually(
    async () => ((await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key })).status === 404 ? true : undefined),
    15_000,
  );

  const feed = await eventually(async () => {
    const events = await libraryFeed(key);
    return events.filter((e) => e.type === 'track.removed').length === 2 ? events : undefined;
  }, 15_000);
  expect(feed.every((e) => e.product === 'library' && e.resourceId === entity.id)).toBe(true);
  expect(feed.map((e) => e.type)).toEqual(expect.arrayContaining(['track.added', 'track.updated', 'track.removed']));
  expect(feed.find((e) => e.type === 'track.removed')?.data).toEqual({ reason: 'audio_not_online' });
  expect(feed.filter((e) => e.type === 'track.removed')[1]?.data).toEqual({ reason: 'entity_deleted' });
  const updates = feed.filter((e) => e.type === 'track.updated').flatMap((e) => e.data.changedFields as string[]);
  expect(updates).toEqual(expect.arrayContaining(['title', 'markers']));

  // The feeds never mix: no track event in the catalog feed, no catalog event in the library feed.
  const catalogFeed = await api.request('GET', '/api/v1/catalog/events?limit=500', { key });
  expect(catalogFeed.body.events.length).toBeGreaterThan(0);
  expect(catalogFeed.body.events.some((e: { product: string }) => e.product !== 'catalog')).toBe(false);
  expect(feed.some((e) => e.product !== 'library')).toBe(false);
  expectError(await api.request('GET', '/api/v1/library/events?types=entity.created', { key }), 400, 'unknown_event_type');
  expectError(await api.request('GET', '/api/v1/catalog/events?types=track.added', { key }), 400, 'unknown_event_type');
  // A cursor of one feed is not one of the other.
  const catalogCursor = (await api.request('GET', '/api/v1/catalog/events?limit=1', { key })).body.nextCursor;
  expectError(await api.request('GET', `/api/v1/library/events?after=${catalogCursor}`, { key }), 400, 'invalid_cursor');
}, 90_000);

test('a standalone file never enters the library', async () => {
  const { key } = await api.tenant(BOTH);
  const asset = (
    await api.request('POST', '/api/v1/catalog/assets', {
      key,
      body: { retention: 'standalone', upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length } },
    })
  ).body;
  expect((await fetch(asset.upload.url, { method: 'PUT', headers: asset.upload.headers, body: wav })).status).toBeLessThan(300);
  expect((await confirmUpload(api, key, asset.assetId)).status).toBe(200);
  // A song added after it is listed; by then the standalone file's events were handled (one consumer, in order).
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Marker' } })).body;
  await addAudio(key, entity.id);
  const page = await eventually(async () => {
    const listed = await api.request('GET', '/api/v1/library/tracks', { key });
    return listed.body.tracks?.length > 0 ? listed.body : undefined;
  }, 15_000);
  expect(page.tracks.map((t: { entityId: string }) => t.entityId)).toEqual([entity.id]);
  await eventually(async () => ((await libraryFeed(key)).map((e) => e.type).join() === 'track.added' ? true : undefined), 15_000);
  // Another tenant's track is a 404 like a missing one, and in no listing of the other tenant.
  const other = await api.tenant(BOTH);
  const foreign = await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key: other.key });
  expectError(foreign, 404, 'not_found');
  expect(foreign.body.error.message).toBe(
    (await api.request('GET', `/api/v1/library/tracks/${newId()}`, { key: other.key })).body.error.message,
  );
  expect((await api.request('GET', '/api/v1/library/tracks', { key: other.key })).body.tracks).toEqual([]);
}, 60_000);

test('library:api is needed (403 with only catalog:api), the library product too (402), on every library endpoint', async () => {
  const catalogOnly = await api.tenant({ products: ['catalog', 'library'], permissions: ['catalog:api'] });
  const noProduct = await api.tenant({ products: ['catalog'], permissions: ['catalog:api', 'library:api'] });
  const id = '00000000-0000-4000-8000-000000000000';
  for (const path of ['/api/v1/library/tracks', `/api/v1/library/tracks/${id}`, '/api/v1/library/events']) {
    expectError(await api.request('GET', path, { key: catalogOnly.key }), 403, 'forbidden');
    const refused = await api.request('GET', path, { key: noProduct.key });
    expect(refused.status).toBe(402);
  }
  // Another tenant's track is a 404, never a 403.
  const { key } = await api.tenant(BOTH);
  expectError(await api.request('GET', `/api/v1/library/tracks/${id}`, { key }), 404, 'not_found');
});

test('analysis events of the agreed shape refresh the track without breaking the projection; a standalone file’s are ignored', async () => {
  const tenant = await api.tenant(BOTH);
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key: tenant.key, body: { type: 'song', title: 'Analysed' } }))
    .body;
  const version = await addAudio(tenant.key, entity.id);
  await eventually(
    async () => ((await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key: tenant.key })).status === 200 ? true : undefined),
    15_000,
  );
  const nc = await testBus('as-analysis', { user: 'analysis' });
  try {
    const subjects = subjectsFor(system.env.NATS_PREFIX!);
    const facts = { jobId: newId(), type: 'tempo', assetId: version.asset.id, versionId: version.id, status: 'SUCCEEDED', credits: 1 };
    for (const [type, entityId] of [
      ['analysis.succeeded', entity.id],
      ['analysis.succeeded', null],
      ['analysis.failed', entity.id],
    ] as const) {
      const data = {
        ...facts,
        jobId: newId(),
        entityId,
        ...(type === 'analysis.failed' ? { status: 'FAILED', credits: 0, errorCode: 'x' } : {}),
      };
      await publishEvent(
        nc,
        subjects,
        testBusEvent({ tenantId: tenant.orgId, type, resourceKind: 'analysis', resourceId: data.jobId, data }),
      );
    }
  } finally {
    await nc.close();
  }
  // The consumer goes on: a later change lands, and the analysis events changed nothing else.
  await api.request('PATCH', `/api/v1/catalog/entities/${entity.id}`, { key: tenant.key, body: { title: 'Analysed again' } });
  await eventually(async () => {
    const read = await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key: tenant.key });
    return read.body.title === 'Analysed again' ? true : undefined;
  }, 15_000);
  const feed = await eventually(async () => {
    const events = await libraryFeed(tenant.key);
    return events.length === 2 ? events : undefined;
  }, 15_000);
  expect(feed.map((e) => [e.type, e.data])).toEqual([
    ['track.added', { entityType: 'song', audioVersionId: version.id, assetId: version.asset.id }],
    ['track.updated', { changedFields: ['title'] }],
  ]);
}, 60_000);

test('the automatic analyses run after confirm and the track shows their facts, found by the loudness filter', async () => {
  const { orgId, key } = await api.tenant({ products: BOTH.products, permissions: [...BOTH.permissions, 'catalog:analysis'] });
  expect((await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 4, reason: 'test' })).status).toBe(201);
  const put = await api.request('PUT', '/api/v1/catalog/entity-types/song', {
    key,
    body: { automaticAnalyses: ['loudness', 'cue_points'] },
  });
  expect(put.status).toBe(200);
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Analysed' } })).body;
  const version = await addAudio(key, entity.id, { isPrimary: true });

  const track = await eventually(async () => {
    const read = await api.request('GET', `/api/v1/library/tracks/${entity.id}`, { key });
    return read.status === 200 && read.body.analysis.loudness && read.body.analysis.cuePoints ? read.body : undefined;
  }, 90_000);
  const jobs = (await api.request('GET', `/api/v1/catalog/analyses?entityId=${entity.id}&status=SUCCEEDED`, { key })).body.analyses;
  const loudnessJob = jobs.find((job: { type: string }) => job.type === 'loudness');
  expect(loudnessJob).toBeDefined();
  expect(track.analysis.loudness).toMatchObject({
    integratedLufs: loudnessJob.summary.integratedLufs,
    jobId: loudnessJob.jobId,
    resultPath: `/api/v1/catalog/analyses/${loudnessJob.jobId}`,
  });
  expect(typeof track.analysis.loudness.integratedLufs).toBe('number');
  expect(track.audioVersion.id).toBe(version.id);

  // The loudness filter finds the track inside its range and not outside it.
  const lufs = track.analysis.loudness.integratedLufs as number;
  const within = await api.request('GET', `/api/v1/library/tracks?loudnessMin=${Math.floor(lufs) - 1}&loudnessMax=${Math.ceil(lufs) + 1}`, {
    key,
  });
  expect(within.body.tracks.map((t: { entityId: string }) => t.entityId)).toEqual([entity.id]);
  const outside = await api.request('GET', `/api/v1/library/tracks?loudnessMin=${Math.ceil(lufs) + 1}`, { key });
  expect(outside.body.tracks).toEqual([]);
});
