import { createHash } from 'node:crypto';
import pg from 'pg';
import { libraryConfig, startLibraryService } from '@catalog/library';
import { readConfig } from '@catalog/platform';
import { eventually, sineWav, testLogger } from '@catalog/testing';
import { apiClient, type ApiResponse, confirmUpload } from '../support/api.js';
import { PATIENT_CALLS, startSystem, type RunningSystem } from '../support/system.js';

/**
 * Issue 14: dropping the library schema and restarting the service rebuilds the same tracks from
 * the catalog (field by field), while the library keeps answering and live changes still land
 * (decision 0104).
 */
let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let library: { stop(): Promise<void> } | undefined;

const startLibrary = async () => {
  library = await startLibraryService(readConfig(libraryConfig, system.env), { logger: testLogger('library') });
};
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  system = await startSystem(PATIENT_CALLS, { library: false });
  api = apiClient(system.baseUrl);
  await startLibrary();
});
afterAll(async () => {
  await library?.stop();
  await system?.stop();
});

async function addAudio(key: string, entityId: string, wav: Buffer): Promise<string> {
  const created = await api.request('POST', `/api/v1/catalog/entities/${entityId}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length, checksum: `sha256:${sha256(wav)}` } },
      label: 'Main',
      versionType: 'radio_edit',
    },
  });
  expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav })).status).toBeLessThan(
    300,
  );
  expect((await confirmUpload(api, key, created.body.asset.id)).status).toBe(200);
  return created.body.id;
}

async function allTracks(key: string): Promise<ApiResponse[]> {
  const listed = await api.request('GET', '/api/v1/library/tracks?limit=200', { key });
  expect(listed.status).toBe(200);
  return Promise.all(
    listed.body.tracks.map((t: { entityId: string }) => api.request('GET', `/api/v1/library/tracks/${t.entityId}`, { key })),
  );
}

test('dropping the schema and restarting rebuilds the same tracks while answering; live changes still land', async () => {
  const wav = await sineWav(0.5);
  const tenants = [await api.tenant({ products: ['catalog', 'library'], permissions: ['catalog:api', 'library:api'] })];
  tenants.push(await api.tenant({ products: ['catalog', 'library'], permissions: ['catalog:api', 'library:api'] }));
  const entities: Array<{ key: string; id: string }> = [];
  for (const [t, { key }] of tenants.entries()) {
    for (let i = 0; i < 6; i += 1) {
      const entity = (
        await api.request('POST', '/api/v1/catalog/entities', {
          key,
          body: { type: i % 2 ? 'song' : 'jingle', title: `Track ${t}-${i}`, ...(i % 3 ? { artist: 'Ärtist' } : {}) },
        })
      ).body;
      const versionId = await addAudio(key, entity.id, wav);
      if (i === 0) {
        await api.request('PUT', `/api/v1/catalog/entities/${entity.id}/versions/${versionId}/markers`, {
          key,
          body: { markers: [{ type: 'cue_in', positionMs: 10 }] },
        });
      }
      entities.push({ key, id: entity.id });
    }
    // Neither a track: an entity without audio, and one deleted after it was one.
    await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'No audio' } });
    const gone = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Gone' } })).body;
    await addAudio(key, gone.id, wav);
    await api.request('DELETE', `/api/v1/catalog/entities/${gone.id}`, { key });
  }
  const before = await eventually(async () => {
    const tracks = (await Promise.all(tenants.map(({ key }) => allTracks(key)))).flat();
    const markers = tracks.find((t) => t.body.title === 'Track 0-0')?.body.versions.AUDIO.markers.length;
    return tracks.length === 12 && markers === 1 ? tracks.map((t) => t.body) : undefined;
  }, 20_000);

  await library!.stop();
  const admin = new pg.Client({ connectionString: system.database.url });
  await admin.connect();
  try {
    await admin.query('drop schema library cascade');
  } finally {
    await admin.end();
  }
  await startLibrary();
  // A live change while the rebuild runs.
  const changed = entities[3]!;
  expect(
    (await api.request('PATCH', `/api/v1/catalog/entities/${changed.id}`, { key: changed.key, body: { title: 'Renamed' } })).status,
  ).toBe(200);
  const statuses = new Set<number>();
  const after = await eventually(
    async () => {
      const tracks = await Promise.all(
        tenants.map(async ({ key }) => {
          const listed = await api.request('GET', '/api/v1/library/tracks?limit=200', { key });
          statuses.add(listed.status);
          return listed.body.tracks ?? [];
        }),
      );
      const found = tracks.flat().map((t: { title: string }) => t.title);
      return found.length === 12 && found.includes('Renamed')
        ? (await Promise.all(tenants.map(({ key }) => allTracks(key)))).flat()
        : undefined;
    },
    30_000,
    20,
  );
  expect([...statuses]).toEqual([200]);
  const byId = new Map(after.map((t) => [t.body.entityId, t.body]));
  for (const track of before) {
    const rebuilt = byId.get(track.entityId);
    if (track.entityId === changed.id) {
      expect(rebuilt).toEqual({ ...track, title: 'Renamed', updatedAt: rebuilt.updatedAt });
      expect(Date.parse(rebuilt.updatedAt)).toBeGreaterThan(Date.parse(track.updatedAt));
    } else {
      expect(rebuilt).toEqual(track);
    }
  }
}, 120_000);
