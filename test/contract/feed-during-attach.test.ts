import { sleep, type CallContext } from '@catalog/platform';
import type { AssetClient } from '@catalog/catalog';
import { eventually } from '@catalog/testing';
import { apiClient, confirmUpload } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * Issue 17 item 7, decision 0058: the catalog holds no transaction while it waits for the asset
 * service. The asset service's answer to attachAsset is held back for 5 s; meanwhile another
 * tenant's new entity must reach its events feed (outbox relay, stream, feed writer, feed page all
 * read below the oldest open transaction of the cluster), and the version is written correctly
 * once the answer arrives.
 */
const HOLD_MS = 5_000;

let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
/** Set while an attach answer is held back from the catalog. */
let holding = false;
let onHold: (() => void) | undefined;
let endHold: (() => void) | undefined;

/** The catalog's client of the asset service, with attach answers held back up to HOLD_MS when asked. */
function holdingAttaches(client: AssetClient): AssetClient {
  return {
    ...client,
    async attach(call: CallContext, assetId: string, version: { entityId: string; versionId: string }) {
      const answer = await client.attach(call, assetId, version);
      if (onHold) {
        holding = true;
        onHold();
        const ended = new AbortController();
        endHold = () => ended.abort();
        await sleep(HOLD_MS, ended.signal);
        holding = false;
      }
      return answer;
    },
  };
}

beforeAll(async () => {
  system = await startSystem({}, { catalog: { wrapAssetClient: holdingAttaches } });
  api = apiClient(system.baseUrl);
});
afterAll(async () => {
  await system.stop();
});

const png = Buffer.alloc(64, 3);

test("another tenant's writes reach its feed while a version waits for the asset service's attach", async () => {
  const a = await api.tenant({ name: 'Waiting Radio' });
  const b = await api.tenant({ name: 'Busy Radio' });
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key: a.key, body: { type: 'song', title: 'Held' } })).body;
  const asset = (
    await api.request('POST', '/api/v1/catalog/assets', {
      key: a.key,
      body: { retention: 'standalone', upload: { filename: 'cover.png', contentType: 'image/png', size: png.length } },
    })
  ).body;
  expect((await fetch(asset.upload.url, { method: 'PUT', headers: asset.upload.headers, body: png })).status).toBe(200);
  expect((await confirmUpload(api, a.key, asset.assetId)).status).toBe(200);

  const held = new Promise<void>((resolve) => (onHold = resolve));
  const creating = api.request('POST', `/api/v1/catalog/entities/${entity.id}/versions`, {
    key: a.key,
    body: { source: { assetId: asset.assetId }, label: 'Cover', versionType: 'cover_art' },
  });
  let seenWhileHeld: boolean;
  try {
    await held;
    onHold = undefined;
    const other = await api.request('POST', '/api/v1/catalog/entities', { key: b.key, body: { type: 'song', title: 'Meanwhile' } });
    expect(other.status).toBe(201);
    seenWhileHeld = await eventually(
      async () => {
        const page = await api.request('GET', '/api/v1/catalog/events?types=entity.created', { key: b.key });
        expect(page.status).toBe(200);
        return page.body.events.some((event: { resourceId: string }) => event.resourceId === other.body.id) ? holding : undefined;
      },
      30_000,
      250,
    );
  } finally {
    endHold?.();
  }
  // The entity of tenant B was in its feed before the attach answer reached the catalog.
  expect(seenWhileHeld).toBe(true);

  const created = await creating;
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    entityId: entity.id,
    kind: 'ARTWORK',
    isPrimary: true,
    asset: { id: asset.assetId, status: 'ONLINE' },
  });
  const listed = await api.request('GET', `/api/v1/catalog/entities/${entity.id}/versions`, { key: a.key });
  expect(listed.body.versions.map((v: { id: string }) => v.id)).toEqual([created.body.id]);
  expect((await api.request('GET', `/api/v1/catalog/assets/${asset.assetId}`, { key: a.key })).body).toMatchObject({
    retention: 'attached',
    entityId: entity.id,
    expiresAt: null,
  });
  const events = await eventually(
    async () => {
      const page = await api.request('GET', '/api/v1/catalog/events?types=version.created', { key: a.key });
      return page.body.events.length > 0 ? page.body.events : undefined;
    },
    30_000,
    250,
  );
  expect(events).toEqual([
    expect.objectContaining({
      type: 'version.created',
      resourceId: created.body.id,
      data: expect.objectContaining({ assetId: asset.assetId }),
    }),
  ]);
});
