import type { Entity, Relation } from '@catalog/contracts';
import { newId, type BusEvent } from '@catalog/platform';
import { createTestDatabase, testBusEvent, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { checkCatalogEvent } from '../src/consumers/event-check.js';
import { applyCatalogEventLanes } from '../src/domain/projection.js';
import { rebuildLibrary } from '../src/domain/rebuild.js';
import { trackCursors } from '../src/domain/track-cursor.js';
import { readTrack } from '../src/domain/track-detail.js';
import { listTracks } from '../src/domain/track-listing.js';
import { catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/**
 * The library's relations (decision 0136): projected from the catalog's relation events, shown on
 * the track detail with the other entity's current title, and filtered by with `relatedTo`.
 */
let database: TestDatabase;
let library: Awaited<ReturnType<typeof startTestLibrary>>;
let admin: pg.Client;
const cursors = trackCursors('relations-test-cursor-secret');

beforeAll(async () => {
  database = await createTestDatabase('libraryrelations');
  library = await startTestLibrary(database);
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await library?.stop();
  await database?.drop();
});

let seq = 0;
const at = () => ({ stream: 's1', seq: (seq += 1) });

/** A tenant's catalog as the projection reads it, and a way to apply events as the lanes do (each its own lane). */
function tenantCatalog() {
  const tenantId = newId();
  const entities = new Map<string, Map<string, Entity>>([[tenantId, new Map()]]);
  const { deps } = catalogDouble(library.database.db, entities);
  const put = (title: string, id = newId()) => {
    entities.get(tenantId)!.set(id, { ...testEntity, id, title });
    return id;
  };
  const apply = (...events: BusEvent[]) =>
    applyCatalogEventLanes(
      deps,
      events.map((event) => [{ event, position: at() }]),
    );
  const entityEvent = (type: string, id: string) => testBusEvent({ tenantId, type, resourceKind: 'entity', resourceId: id });
  const relationEvent = (
    type: 'relation.created' | 'relation.deleted',
    relationId: string,
    kind: string,
    sourceId: string,
    targetId: string,
  ) => testBusEvent({ tenantId, type, resourceKind: 'relation', resourceId: relationId, data: { type: kind, sourceId, targetId } });
  const relationsOf = async (id: string) => {
    const track = await readTrack(library.database.db, tenantId, id);
    return { relations: track.relations, hasMoreRelations: track.hasMoreRelations };
  };
  const related = async (id: string) =>
    (await listTracks({ db: library.database.db, cursors }, tenantId, { relatedTo: id, sort: 'title' }, 1_000_000)).tracks.map(
      (t) => t.title,
    );
  // The library's feed of the tenant after the `track.*` events already there, as [type, track, data].
  let seen = 0;
  const newTrackEvents = async () => {
    const { rows } = await admin.query('select type, resource_id, data from library.outbox where tenant_id = $1 order by seq offset $2', [
      tenantId,
      seen,
    ]);
    seen += rows.length;
    return rows.map((r) => [r.type, r.resource_id, r.data]);
  };
  return { tenantId, deps, entities, put, apply, entityEvent, relationEvent, relationsOf, related, newTrackEvents };
}

test('a track lists its relations both ways with the other title, kept current when the other entity is renamed', async () => {
  const t = tenantCatalog();
  const [remix, original, show] = [t.put('Remix'), t.put('Original'), t.put('Morning Show')];
  await t.apply(t.entityEvent('entity.created', remix), t.entityEvent('entity.created', original));
  const [r1, r2] = [newId(), newId()];
  // The show is no track (its entity was never refreshed here): its title comes from the relation event's read.
  expect(
    await t.apply(
      t.relationEvent('relation.created', r1, 'remix_of', remix, original),
      t.relationEvent('relation.created', r2, 'jingle_for', remix, show),
    ),
  ).toEqual(['updated', 'updated']);
  expect(await t.relationsOf(remix)).toEqual({
    relations: [
      { relationId: r1, type: 'remix_of', direction: 'outgoing', entityId: original, title: 'Original' },
      { relationId: r2, type: 'jingle_for', direction: 'outgoing', entityId: show, title: 'Morning Show' },
    ],
    hasMoreRelations: false,
  });
  expect((await t.relationsOf(original)).relations).toEqual([
    { relationId: r1, type: 'remix_of', direction: 'incoming', entityId: remix, title: 'Remix' },
  ]);

  t.put('Original (2024 remaster)', original);
  await t.apply(t.entityEvent('entity.updated', original));
  expect((await t.relationsOf(remix)).relations[0]).toMatchObject({ entityId: original, title: 'Original (2024 remaster)' });
});

test('a deleted relation leaves both tracks; a late repeat of its creation changes nothing', async () => {
  const t = tenantCatalog();
  const [a, b] = [t.put('A'), t.put('B')];
  await t.apply(t.entityEvent('entity.created', a), t.entityEvent('entity.created', b));
  const id = newId();
  const created = t.relationEvent('relation.created', id, 'same_work_as', a, b);
  await t.apply(created);
  expect((await t.relationsOf(b)).relations).toEqual([
    { relationId: id, type: 'same_work_as', direction: 'symmetric', entityId: a, title: 'A' },
  ]);
  await t.apply(t.relationEvent('relation.deleted', id, 'same_work_as', a, b));
  await t.apply(created);
  expect((await t.relationsOf(a)).relations).toEqual([]);
  expect((await t.relationsOf(b)).relations).toEqual([]);
  // A deletion applied before its creation: the creation changes nothing either.
  const early = newId();
  await t.apply(t.relationEvent('relation.deleted', early, 'samples', a, b));
  await t.apply(t.relationEvent('relation.created', early, 'samples', a, b));
  expect((await t.relationsOf(a)).relations).toEqual([]);
});

test('relatedTo lists the tracks related to an entity, either direction, relations deleted left out', async () => {
  const t = tenantCatalog();
  const [hub, x, y, z] = [t.put('Hub'), t.put('X'), t.put('Y'), t.put('Z')];
  await t.apply(...[hub, x, y, z].map((id) => t.entityEvent('entity.created', id)));
  const gone = newId();
  await t.apply(
    t.relationEvent('relation.created', newId(), 'part_of', x, hub),
    t.relationEvent('relation.created', newId(), 'samples', hub, y),
    t.relationEvent('relation.created', gone, 'cover_of', z, hub),
  );
  expect(await t.related(hub)).toEqual(['X', 'Y', 'Z']);
  await t.apply(t.relationEvent('relation.deleted', gone, 'cover_of', z, hub));
  expect(await t.related(hub)).toEqual(['X', 'Y']);
  expect(await t.related(x)).toEqual(['Hub']);
  expect(await t.related(newId())).toEqual([]);
});

test('a track shows its first 100 relations and says it has more', async () => {
  const t = tenantCatalog();
  const hub = t.put('Hub');
  await t.apply(t.entityEvent('entity.created', hub));
  const others = Array.from({ length: 101 }, (_, i) => t.put(`Jingle ${i}`));
  await t.apply(...others.map((id) => t.relationEvent('relation.created', newId(), 'part_of', id, hub)));
  const { relations, hasMoreRelations } = await t.relationsOf(hub);
  expect(relations).toHaveLength(100);
  expect(hasMoreRelations).toBe(true);
  expect(relations.every((r) => r.direction === 'incoming' && r.title?.startsWith('Jingle '))).toBe(true);
});

test('relation events share their tenant’s lane of no entity with other events: they are applied in order, the others left alone', async () => {
  const t = tenantCatalog();
  const [a, b] = [t.put('A'), t.put('B')];
  await t.apply(t.entityEvent('entity.created', a), t.entityEvent('entity.created', b));
  const [kept, dropped] = [newId(), newId()];
  const typeChanged = testBusEvent({
    tenantId: t.tenantId,
    type: 'entity_type.updated',
    resourceKind: 'entity_type',
    resourceId: null,
    data: { name: 'song', automaticAnalyses: [], cuePointMarkers: false },
  });
  const lane = [
    t.relationEvent('relation.created', kept, 'samples', a, b),
    typeChanged,
    t.relationEvent('relation.created', dropped, 'cover_of', b, a),
    t.relationEvent('relation.deleted', dropped, 'cover_of', b, a),
  ].map((event) => ({ event, position: at() }));
  expect(await applyCatalogEventLanes(t.deps, [lane])).toEqual(['updated']);
  expect((await t.relationsOf(a)).relations.map((r) => [r.relationId, r.direction])).toEqual([[kept, 'outgoing']]);
  expect(await applyCatalogEventLanes(t.deps, [[{ event: typeChanged, position: at() }]])).toEqual(['ignored']);
});

test('a relation event whose data does not match its registered schema is refused before it is applied', () => {
  const event = testBusEvent({
    tenantId: newId(),
    type: 'relation.created',
    resourceKind: 'relation',
    resourceId: newId(),
    data: { type: 'inspired_by', sourceId: newId(), targetId: newId() },
  });
  expect(() => checkCatalogEvent(event)).toThrow(expect.objectContaining({ status: 422, code: 'invalid_event' }));
});

test('the rebuild adds the relations the catalog lists that the library lacks, and never undoes a deletion it applied', async () => {
  const t = tenantCatalog();
  const [a, b, c] = [t.put('A'), t.put('B'), t.put('C')];
  const [listed, deletedMeanwhile] = [newId(), newId()];
  await t.apply(t.entityEvent('entity.created', a), t.entityEvent('entity.created', b));
  await t.apply(t.relationEvent('relation.deleted', deletedMeanwhile, 'samples', a, c));
  await t.newTrackEvents();
  const relation = (id: string, type: Relation['type'], sourceId: string, targetId: string): Relation => ({
    id,
    type,
    sourceId,
    targetId,
    direction: 'outgoing',
    attributes: {},
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  t.deps.catalog.relations = async (_tenantId, entityId) =>
    entityId === a ? [relation(listed, 'remix_of', a, b), relation(deletedMeanwhile, 'samples', a, c)] : [];
  await rebuildLibrary(t.deps);
  // The tracks of the added relation's ends say their relations changed (c only entered the library).
  const relationsChanged = (await t.newTrackEvents()).filter(([type]) => type === 'track.updated');
  expect(relationsChanged.map(([, id]) => id).sort()).toEqual([a, b].sort());
  expect(relationsChanged.every(([, , data]) => JSON.stringify(data) === '{"changedFields":["relations"]}')).toBe(true);
  expect((await t.relationsOf(a)).relations).toEqual([
    { relationId: listed, type: 'remix_of', direction: 'outgoing', entityId: b, title: 'B' },
  ]);
  expect((await t.relationsOf(b)).relations).toEqual([
    { relationId: listed, type: 'remix_of', direction: 'incoming', entityId: a, title: 'A' },
  ]);
  expect(await t.related(c)).toEqual([]);
});

test('a relation created or deleted records track.updated naming relations for each end that is a track; a repeat records none', async () => {
  const t = tenantCatalog();
  const [remix, original, show] = [t.put('Remix'), t.put('Original'), t.put('Morning Show')];
  await t.apply(t.entityEvent('entity.created', remix), t.entityEvent('entity.created', original));
  expect((await t.newTrackEvents()).map(([type]) => type)).toEqual(['track.added', 'track.added']);
  const [r1, r2] = [newId(), newId()];
  const relations = { changedFields: ['relations'] };
  const created = t.relationEvent('relation.created', r1, 'remix_of', remix, original);
  await t.apply(created);
  expect(await t.newTrackEvents()).toEqual(
    [
      ['track.updated', remix, relations],
      ['track.updated', original, relations],
    ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
  );
  // The show is no track: only the remix's relations changed.
  await t.apply(t.relationEvent('relation.created', r2, 'jingle_for', show, remix));
  expect(await t.newTrackEvents()).toEqual([['track.updated', remix, relations]]);
  await t.apply(created);
  expect(await t.newTrackEvents()).toEqual([]);
  await t.apply(t.relationEvent('relation.deleted', r2, 'jingle_for', show, remix));
  expect(await t.newTrackEvents()).toEqual([['track.updated', remix, relations]]);
  // A deletion of a relation the library never showed changes no track.
  await t.apply(t.relationEvent('relation.deleted', newId(), 'samples', remix, original));
  expect(await t.newTrackEvents()).toEqual([]);
});
