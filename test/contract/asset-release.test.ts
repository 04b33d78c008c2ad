import { eventually } from '@catalog/testing';
import { apiClient, confirmUpload } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

let system: RunningSystem;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  system = await startSystem();
  api = apiClient(system.baseUrl);
});
afterAll(async () => {
  await system.stop();
});

const png = Buffer.alloc(64, 5);

/**
 * The file of a deleted version (deleted on its own or with its entity) is released by the asset
 * service: standalone again, expiring like a standalone file, until a version uses it again.
 */
describe('files of deleted versions', () => {
  async function setUp() {
    const { key } = await api.tenant();
    const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Released' } })).body;
    const addVersion = async (confirm: boolean) => {
      const created = await api.request('POST', `/api/v1/catalog/entities/${entity.id}/versions`, {
        key,
        body: {
          source: { upload: { filename: 'cover.png', contentType: 'image/png', size: png.length } },
          label: 'Cover',
          versionType: 'cover_art',
        },
      });
      expect(created.status).toBe(201);
      if (confirm) {
        const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: png });
        expect(put.status).toBeLessThan(300);
        expect((await confirmUpload(api, key, created.body.asset.id)).status).toBe(200);
      }
      return created.body;
    };
    const readAsset = async (id: string) => (await api.request('GET', `/api/v1/catalog/assets/${id}`, { key })).body;
    const untilReleased = (id: string) =>
      eventually(async () => {
        const asset = await readAsset(id);
        return asset.retention === 'standalone' && asset.expiresAt !== null ? asset : undefined;
      }, 30_000);
    const releasedEvents = async (): Promise<any[]> =>
      (await api.request('GET', '/api/v1/catalog/events?types=asset.released', { key })).body.events ?? [];
    return { key, entity, addVersion, readAsset, untilReleased, releasedEvents };
  }

  test('deleting a version releases its file; a new version from source.assetId attaches it again', async () => {
    const { key, entity, addVersion, readAsset, untilReleased, releasedEvents } = await setUp();
    const version = await addVersion(true);
    expect(await readAsset(version.asset.id)).toMatchObject({
      status: 'ONLINE',
      retention: 'attached',
      entityId: entity.id,
      expiresAt: null,
    });

    expect((await api.request('DELETE', `/api/v1/catalog/entities/${entity.id}/versions/${version.id}`, { key })).status).toBe(204);
    const released = await untilReleased(version.asset.id);
    expect(released).toMatchObject({ status: 'ONLINE', retention: 'standalone', entityId: null });
    expect(Date.parse(released.expiresAt)).toBeGreaterThan(Date.now());
    const events = await eventually(async () => {
      const found = (await releasedEvents()).filter((e) => e.resourceId === version.asset.id);
      return found.length > 0 ? found : undefined;
    }, 30_000);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'asset.released',
        resourceKind: 'asset',
        data: expect.objectContaining({ versionId: version.id, retention: 'standalone' }),
      }),
    ]);

    const again = await api.request('POST', `/api/v1/catalog/entities/${entity.id}/versions`, {
      key,
      body: { source: { assetId: version.asset.id }, label: 'Cover again', versionType: 'cover_art' },
    });
    expect(again.status).toBe(201);
    expect(again.body.asset).toMatchObject({ id: version.asset.id, status: 'ONLINE' });
    expect(await readAsset(version.asset.id)).toMatchObject({
      status: 'ONLINE',
      retention: 'attached',
      entityId: entity.id,
      expiresAt: null,
    });
  });

  test('deleting an entity releases the files of its versions', async () => {
    const { key, entity, addVersion, untilReleased, releasedEvents } = await setUp();
    const online = await addVersion(true);
    const pending = await addVersion(false);
    expect((await api.request('DELETE', `/api/v1/catalog/entities/${entity.id}`, { key })).status).toBe(204);

    expect(await untilReleased(online.asset.id)).toMatchObject({ status: 'ONLINE', entityId: null });
    expect(await untilReleased(pending.asset.id)).toMatchObject({ status: 'PENDING_UPLOAD', entityId: null });
    const events = await eventually(async () => {
      const found = await releasedEvents();
      return found.length === 2 ? found : undefined;
    }, 30_000);
    expect(events.map((e) => [e.resourceId, e.data.versionId]).sort()).toEqual(
      [
        [online.asset.id, online.id],
        [pending.asset.id, pending.id],
      ].sort(),
    );
  });
});
