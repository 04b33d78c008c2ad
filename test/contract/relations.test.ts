import { createHash } from 'node:crypto';
import type { FeedEvent } from '@catalog/contracts';
import { eventually, sineWav, type ApiResponse } from '@catalog/testing';
import { confirmUpload, expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

/**
 * Relations between entities through the gateway (decision 0136): the cycle rule under
 * concurrency, the cascade of an entity's deletion, the events in the feed in order, the
 * Idempotency-Key of the create, and the library's side (track detail, relatedTo).
 */
const sut = useSystem();

interface EventsPage {
  events: FeedEvent[];
  nextCursor: string | null;
  hasMore: boolean;
}

const BOTH = { products: ['catalog', 'library'], permissions: ['catalog:api', 'library:api'] };

let wav: Buffer;
beforeAll(async () => {
  wav = await sineWav(1, { sampleRate: 8_000 });
});

const entity = async (key: string, title: string): Promise<string> =>
  (await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title } })).body.id as string;

const relate = (key: string, sourceId: string, body: Record<string, unknown>, headers?: Record<string, string>): Promise<ApiResponse> =>
  sut.api.request('POST', `/api/v1/catalog/entities/${sourceId}/relations`, { key, body, ...(headers ? { headers } : {}) });

const relationsOf = async (key: string, entityId: string, query = ''): Promise<Array<{ id: string; direction: string }>> =>
  (await sut.api.request('GET', `/api/v1/catalog/entities/${entityId}/relations${query}`, { key })).body.relations;

/** The tenant's catalog feed of these types, every page, once it holds `count` events. */
async function feedOf(key: string, types: string, count: number): Promise<FeedEvent[]> {
  return eventually(async () => {
    const events: FeedEvent[] = [];
    let after: string | null = null;
    do {
      const path = `/api/v1/catalog/events?types=${types}${after ? `&after=${after}` : ''}`;
      const page: ApiResponse<EventsPage> = await sut.api.request<EventsPage>('GET', path, { key });
      expect(page.status).toBe(200);
      events.push(...page.body.events);
      after = page.body.hasMore ? page.body.nextCursor : null;
    } while (after);
    return events.length >= count ? events : undefined;
  }, 15_000);
}

test('a relation: 201, the same again 200, Idempotency-Key replays, listed from both ends, deleted; bad requests are 4xx', async () => {
  const { key } = await sut.api.tenant();
  const [edit, original] = [await entity(key, 'Radio edit'), await entity(key, 'Album version')];
  const headers = { 'Idempotency-Key': `edit-${edit}` };
  const created = await relate(key, edit, { type: 'edit_of', targetId: original, attributes: { clean: true } }, headers);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    type: 'edit_of',
    sourceId: edit,
    targetId: original,
    direction: 'outgoing',
    attributes: { clean: true },
  });
  const replay = await relate(key, edit, { type: 'edit_of', targetId: original, attributes: { clean: true } }, headers);
  expect({ status: replay.status, body: replay.body, replayed: replay.headers.get('idempotent-replayed') }).toEqual({
    status: 201,
    body: created.body,
    replayed: 'true',
  });
  const again = await relate(key, edit, { type: 'edit_of', targetId: original });
  expect({ status: again.status, id: again.body.id }).toEqual({ status: 200, id: created.body.id });
  expect(await relationsOf(key, original, '?direction=incoming')).toMatchObject([{ id: created.body.id, direction: 'incoming' }]);
  expect(await relationsOf(key, original, '?direction=outgoing')).toEqual([]);

  expectError(await relate(key, edit, { type: 'edit_of', targetId: edit }), 400, 'self_relation');
  expectError(await relate(key, edit, { type: 'edit_of', targetId: original, extra: 1 }), 400, 'invalid_body');
  expectError(await relate(key, original, { type: 'edit_of', targetId: edit }), 409, 'relation_cycle');
  expectError(await sut.api.request('GET', `/api/v1/catalog/entities/${edit}/relations?direction=sideways`, { key }), 400, 'invalid_query');

  const removed = await sut.api.request('DELETE', `/api/v1/catalog/entities/${original}/relations/${created.body.id}`, { key });
  expect(removed.status).toBe(204);
  expect(await relationsOf(key, edit)).toEqual([]);
  expectError(await sut.api.request('DELETE', `/api/v1/catalog/entities/${edit}/relations/${created.body.id}`, { key }), 404, 'not_found');
});

test('two requests that together would close a cycle: exactly one wins, every round', async () => {
  const { key } = await sut.api.tenant();
  for (let round = 0; round < 12; round += 1) {
    const [x, y] = [await entity(key, `X${round}`), await entity(key, `Y${round}`)];
    const type = ['part_of', 'remix_of', 'edit_of'][round % 3]!;
    // remix_of and edit_of are one derivation graph: the second request may use the other type.
    const otherType = type === 'part_of' ? 'part_of' : type === 'remix_of' ? 'edit_of' : 'remix_of';
    const answers = await Promise.all([relate(key, x, { type, targetId: y }), relate(key, y, { type: otherType, targetId: x })]);
    expect({ round, statuses: answers.map((a) => a.status).sort() }).toEqual({ round, statuses: [201, 409] });
    const loser = answers.find((a) => a.status === 409)!;
    expectError(loser, 409, 'relation_cycle');
    expect((await relationsOf(key, x)).length).toBe(1);
  }
});

test('deleting an entity deletes its relations both ways; the feed has relation.created, then relation.deleted of each before entity.deleted', async () => {
  const { key } = await sut.api.tenant();
  const [doomed, pkg, cover, other] = [
    await entity(key, 'Jingle'),
    await entity(key, 'Package'),
    await entity(key, 'Cover'),
    await entity(key, 'Other'),
  ];
  const partOf = (await relate(key, doomed, { type: 'part_of', targetId: pkg })).body;
  const coverOf = (await relate(key, cover, { type: 'cover_of', targetId: doomed })).body;
  const kept = (await relate(key, cover, { type: 'same_work_as', targetId: other })).body;
  expect((await sut.api.request('DELETE', `/api/v1/catalog/entities/${doomed}`, { key })).status).toBe(204);
  expect(await relationsOf(key, pkg)).toEqual([]);
  expect((await relationsOf(key, cover)).map((r) => r.id)).toEqual([kept.id]);
  expectError(await sut.api.request('GET', `/api/v1/catalog/entities/${doomed}/relations`, { key }), 404, 'not_found');

  const feed = await feedOf(key, 'relation.created,relation.deleted,entity.deleted', 6);
  expect(feed.map((e) => [e.type, e.resourceId])).toEqual([
    ['relation.created', partOf.id],
    ['relation.created', coverOf.id],
    ['relation.created', kept.id],
    ['relation.deleted', partOf.id],
    ['relation.deleted', coverOf.id],
    ['entity.deleted', doomed],
  ]);
  expect(feed[3]).toMatchObject({ resourceKind: 'relation', dmrn: null, data: { type: 'part_of', sourceId: doomed, targetId: pkg } });
  expect(feed[4]!.data).toEqual({ type: 'cover_of', sourceId: cover, targetId: doomed });
});

/** Adds a primary AUDIO version from a new upload, uploaded and confirmed: the entity becomes a track. */
async function addAudio(key: string, entityId: string): Promise<void> {
  const checksum = `sha256:${createHash('sha256').update(wav).digest('hex')}`;
  const created = await sut.api.request('POST', `/api/v1/catalog/entities/${entityId}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length, checksum } },
      label: 'Main',
      versionType: 'radio_edit',
    },
  });
  expect(created.status).toBe(201);
  expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav })).status).toBeLessThan(
    300,
  );
  expect((await confirmUpload(sut.api, key, created.body.asset.id)).status).toBe(200);
}

test('library: a track lists its relations with the other title (current after a rename), and relatedTo filters tracks', async () => {
  const { key } = await sut.api.tenant(BOTH);
  const [remix, original, cover] = [await entity(key, 'Remix'), await entity(key, 'Original'), await entity(key, 'Cover')];
  const show = await entity(key, 'Morning Show');
  for (const id of [remix, original, cover]) await addAudio(key, id);
  const remixOf = (await relate(key, remix, { type: 'remix_of', targetId: original })).body;
  const jingleFor = (await relate(key, remix, { type: 'jingle_for', targetId: show })).body;
  const coverOf = (await relate(key, cover, { type: 'cover_of', targetId: original })).body;

  const track = async (id: string) => (await sut.api.request('GET', `/api/v1/library/tracks/${id}`, { key })).body;
  const detail = await eventually(async () => {
    const read = await track(remix);
    return read.relations?.length === 2 && read.relations.every((r: { title: string | null }) => r.title !== null) ? read : undefined;
  }, 20_000);
  expect({ relations: detail.relations, hasMoreRelations: detail.hasMoreRelations }).toEqual({
    relations: [
      { relationId: remixOf.id, type: 'remix_of', direction: 'outgoing', entityId: original, title: 'Original' },
      { relationId: jingleFor.id, type: 'jingle_for', direction: 'outgoing', entityId: show, title: 'Morning Show' },
    ],
    hasMoreRelations: false,
  });
  const related = async (id: string) =>
    (await sut.api.request('GET', `/api/v1/library/tracks?relatedTo=${id}`, { key })).body.tracks.map((t: { title: string }) => t.title);
  expect(await eventually(async () => ((await related(original)).length === 2 ? related(original) : undefined), 20_000)).toEqual([
    'Cover',
    'Remix',
  ]);
  expect(await related(show)).toEqual(['Remix']);

  // A rename of the other entity reaches the relations of the track.
  await sut.api.request('PATCH', `/api/v1/catalog/entities/${original}`, { key, body: { title: 'Original (Remastered)' } });
  await eventually(async () => ((await track(remix)).relations[0]?.title === 'Original (Remastered)' ? true : undefined), 20_000);
  // A deleted relation leaves the detail and the filter.
  await sut.api.request('DELETE', `/api/v1/catalog/entities/${cover}/relations/${coverOf.id}`, { key });
  await eventually(async () => ((await related(original)).join() === 'Remix' ? true : undefined), 20_000);
  expect((await track(cover)).relations).toEqual([]);
  expectError(await sut.api.request('GET', '/api/v1/library/tracks?relatedTo=not-an-id', { key }), 400, 'invalid_query');
}, 90_000);
