import type { FeedEvent } from '@catalog/contracts';
import { eventually, sineWav, type ApiResponse } from '@catalog/testing';
import { confirmedVersion } from '../support/analyses.js';
import { expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

/**
 * Ids written in upper case are the same ids: each operation lower-cases the ids it is given once,
 * at its boundary (the platform's request checks), so the relations, versions, assets and the
 * library answer as for lower case, compare them as the same (a relation to itself, its
 * direction, a file's version), and every answer and event carries them in lower case.
 */
const sut = useSystem();

const BOTH = { products: ['catalog', 'library'], permissions: ['catalog:api', 'library:api'] };
const up = (id: string): string => id.toUpperCase();

let wav: Buffer;
beforeAll(async () => {
  wav = await sineWav(1, { sampleRate: 8_000 });
});

const entity = async (key: string, title: string): Promise<string> =>
  (await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title } })).body.id as string;

const relate = (key: string, sourceId: string, body: Record<string, unknown>): Promise<ApiResponse> =>
  sut.api.request('POST', `/api/v1/catalog/entities/${sourceId}/relations`, { key, body });

/** The tenant's catalog events of these types once there are `count`. */
const feedOf = (key: string, types: string, count: number): Promise<FeedEvent[]> =>
  eventually(async () => {
    const events = (await sut.api.request('GET', `/api/v1/catalog/events?types=${types}`, { key })).body.events as FeedEvent[];
    return events.length >= count ? events : undefined;
  }, 20_000);

test('relations: an upper-case path and body id are the same entity (self relation refused, directions right), listed, shown by the library and deleted', async () => {
  const { key } = await sut.api.tenant(BOTH);
  const remix = (await confirmedVersion(sut.api, wav, { key, entityType: 'song', title: 'Remix', writeId: up })).entityId;
  const original = await entity(key, 'Original');

  expectError(await relate(key, up(remix), { type: 'remix_of', targetId: remix }), 400, 'self_relation');
  const created = await relate(key, up(remix), { type: 'remix_of', targetId: up(original) });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ sourceId: remix, targetId: original, direction: 'outgoing' });
  const again = await relate(key, remix, { type: 'remix_of', targetId: original });
  expect({ status: again.status, id: again.body.id }).toEqual({ status: 200, id: created.body.id });

  const listed = await sut.api.request('GET', `/api/v1/catalog/entities/${up(original)}/relations`, { key });
  expect(listed.body.relations).toMatchObject([{ id: created.body.id, direction: 'incoming', sourceId: remix, targetId: original }]);
  const track = await eventually(async () => {
    const read = (await sut.api.request('GET', `/api/v1/library/tracks/${up(remix)}`, { key })).body;
    return read.relations?.length === 1 ? read : undefined;
  }, 20_000);
  expect(track).toMatchObject({ entityId: remix, relations: [{ relationId: created.body.id, direction: 'outgoing', entityId: original }] });
  const related = await eventually(async () => {
    const tracks = (await sut.api.request('GET', `/api/v1/library/tracks?relatedTo=${up(original)}`, { key })).body.tracks;
    return tracks?.length === 1 ? tracks : undefined;
  }, 20_000);
  expect(related).toMatchObject([{ entityId: remix }]);

  const path = `/api/v1/catalog/entities/${up(original)}/relations/${up(created.body.id)}`;
  expect((await sut.api.request('DELETE', path, { key })).status).toBe(204);
  const feed = await feedOf(key, 'relation.created,relation.deleted', 2);
  expect(feed.map((e) => [e.type, e.resourceId, e.data])).toEqual([
    ['relation.created', created.body.id, { type: 'remix_of', sourceId: remix, targetId: original }],
    ['relation.deleted', created.body.id, { type: 'remix_of', sourceId: remix, targetId: original }],
  ]);
});

test("versions and assets: upper-case ids read, download and reuse a file, and the version's deletion releases it (asset.released in lower case)", async () => {
  const { key } = await sut.api.tenant();
  const { entityId: song, versionId, assetId } = await confirmedVersion(sut.api, wav, { key, entityType: 'song', writeId: up });

  const asset = await sut.api.request('GET', `/api/v1/catalog/assets/${up(assetId)}`, { key });
  expect(asset.body).toMatchObject({ id: assetId, entityId: song, retention: 'attached' });
  expect((await sut.api.request('GET', `/api/v1/catalog/assets/${up(assetId)}/download`, { key })).status).toBe(200);
  const read = await sut.api.request('GET', `/api/v1/catalog/entities/${up(song)}/versions/${up(versionId)}`, { key });
  expect(read.body).toMatchObject({ id: versionId, entityId: song, asset: { id: assetId } });

  const deleted = await sut.api.request('DELETE', `/api/v1/catalog/entities/${up(song)}/versions/${up(versionId)}`, { key });
  expect(deleted.status).toBe(204);
  const [released] = await feedOf(key, 'asset.released', 1);
  expect(released).toMatchObject({ resourceId: assetId, data: { versionId: versionId, retention: 'standalone' } });

  const reused = await sut.api.request('POST', `/api/v1/catalog/entities/${up(song)}/versions`, {
    key,
    body: { source: { assetId: up(assetId) }, label: 'Again', versionType: 'radio_edit' },
  });
  expect(reused.status).toBe(201);
  expect(reused.body).toMatchObject({ entityId: song, asset: { id: assetId, status: 'ONLINE' } });
  expect((await sut.api.request('GET', `/api/v1/catalog/assets/${assetId}`, { key })).body).toMatchObject({ retention: 'attached' });
});
