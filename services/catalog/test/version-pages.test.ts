import type { Entity, VersionList } from '@catalog/contracts';
import { DEFAULT_MAX_PAYLOAD } from '@catalog/platform';
import { addUploadVersion, errorOf, startHarness, type CatalogHarness, type Caller } from './support.js';

/**
 * Decision 0052: the version listing is paged. Without `limit` a page holds every version that
 * fits one reply; `limit` and `after` page it in its order (kinds, then oldest first).
 */
let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catvpages', { withAssets: true });
});

afterAll(async () => {
  await h?.stop();
});

async function version(caller: Caller, entityId: string, options: Parameters<typeof addUploadVersion>[2] = {}): Promise<{ id: string }> {
  const reply = await addUploadVersion(caller, entityId, options);
  if (!reply.ok) throw new Error(`createVersion failed: ${JSON.stringify(reply.error)}`);
  return reply.body as { id: string };
}

/** Every page of the listing: the ids in order, and each page's size as JSON. */
async function walk(
  caller: Caller,
  entityId: string,
  query: Record<string, unknown> = {},
): Promise<{ ids: string[]; pages: number[]; sizes: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  const sizes: number[] = [];
  let after: string | null = null;
  for (let i = 0; i < 50; i += 1) {
    const page: { versions: Array<{ id: string }>; nextCursor: string | null; hasMore: boolean } = await caller.ok<VersionList>(
      'listVersions',
      {
        params: { id: entityId },
        query: { ...query, ...(after ? { after } : {}) },
      },
    );
    ids.push(...page.versions.map((v) => v.id));
    pages.push(page.versions.length);
    sizes.push(Buffer.byteLength(JSON.stringify(page)));
    if (!page.hasMore) {
      expect(page.nextCursor).toBeNull();
      return { ids, pages, sizes };
    }
    after = page.nextCursor;
  }
  throw new Error('the listing did not end');
}

test('limit and after page the listing in its order (kinds, then oldest first), with or without a kind; bad cursors and limits are 400', async () => {
  const a = h.tenant();
  const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Paged' } });
  const audio1 = await version(a, entity.id, { label: 'a1' });
  const video = await version(a, entity.id, { filename: 'v.mp4', contentType: 'video/mp4', label: 'clip', versionType: 'video_clip' });
  const art = await version(a, entity.id, { filename: 'c.png', contentType: 'image/png', label: 'cover', versionType: 'cover_art' });
  const audio2 = await version(a, entity.id, { label: 'a2', versionType: 'full_length' });
  const order = [audio1.id, audio2.id, art.id, video.id];

  const all = await a.ok<VersionList>('listVersions', { params: { id: entity.id } });
  expect(all).toMatchObject({ hasMore: false, nextCursor: null });
  expect(all.versions.map((v: { id: string }) => v.id)).toEqual(order);
  expect(await walk(a, entity.id, { limit: 1 })).toMatchObject({ ids: order, pages: [1, 1, 1, 1] });
  expect(await walk(a, entity.id, { limit: 3 })).toMatchObject({ ids: order, pages: [3, 1] });
  expect(await walk(a, entity.id, { kind: 'AUDIO', limit: 1 })).toMatchObject({ ids: [audio1.id, audio2.id], pages: [1, 1] });

  for (const after of [
    'nonsense',
    Buffer.from('{"v":1,"kind":"SPEECH","id":"01900000-0000-7000-8000-000000000000"}').toString('base64url'),
  ]) {
    expect(errorOf(await a.call('listVersions', { params: { id: entity.id }, query: { after } }))).toMatchObject({
      status: 400,
      code: 'invalid_cursor',
    });
  }
  for (const limit of [0, 501]) {
    expect(errorOf(await a.call('listVersions', { params: { id: entity.id }, query: { limit } }))).toMatchObject({
      status: 400,
      code: 'invalid_query',
    });
  }
});

test('versions with many long markers: pages end before the reply would exceed max_payload, every version is reachable', async () => {
  const a = h.tenant();
  const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Heavy' } });
  // 100 markers with labels of 100 characters of 4 bytes each: ~46 KB of JSON per version.
  const markers = Array.from({ length: 100 }, (_, i) => ({
    type: 'custom',
    positionMs: i * 1000,
    label: '\u{1F3B5}'.repeat(99) + String(i % 10),
  }));
  const ids: string[] = [];
  for (let i = 0; i < 26; i += 1) {
    const v = await version(a, entity.id, { label: `edit ${i}` });
    await a.ok('putVersionMarkers', { params: { id: entity.id, versionId: v.id }, body: { markers } });
    ids.push(v.id);
  }
  const unbounded = await walk(a, entity.id);
  expect(unbounded.ids).toEqual(ids);
  expect(unbounded.pages.length).toBeGreaterThan(1);
  for (const size of unbounded.sizes) expect(size).toBeLessThan(DEFAULT_MAX_PAYLOAD);
  const limited = await walk(a, entity.id, { limit: 500 });
  expect(limited.ids).toEqual(ids);
  expect(limited.pages).toEqual(unbounded.pages);
});
