import type { Entity, Molecule, MoleculePage } from '@catalog/contracts';
import { sineWav } from '@catalog/testing';
import { addUploadVersion, errorOf, startHarness, uploadBytes, type CatalogHarness, type Caller } from './support.js';

/**
 * Molecules in the catalog service (decision 0137): elements resolve to their entities' primary
 * AUDIO versions on read, entities of the tenant only, the entity deletion's cascade, the events.
 */
let h: CatalogHarness;
let twoSeconds: Uint8Array;
let oneSecond: Uint8Array;

beforeAll(async () => {
  h = await startHarness('catmolecules', { withAssets: true });
  twoSeconds = await sineWav(2, { sampleRate: 8_000 });
  oneSecond = await sineWav(1, { sampleRate: 8_000 });
});
afterAll(async () => {
  await h?.stop();
});

/** The fields of a createVersion reply this test reads. */
interface CreatedVersion {
  id: string;
  asset: { id: string };
  upload: { url: string; headers: Record<string, string> };
}

/** An entity with a confirmed AUDIO version of `wav` (primary unless another is); returns both ids. */
async function withAudio(a: Caller, wav: Uint8Array, entityId?: string): Promise<{ entityId: string; versionId: string }> {
  const id = entityId ?? (await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Song' } })).id;
  const version = (await addUploadVersion(a, id, { size: wav.length })) as { body: CreatedVersion };
  expect(await uploadBytes(h, version.body.upload, wav)).toBeLessThan(300);
  await h.assets(a).ok('confirmAsset', { params: { id: version.body.asset.id } });
  return { entityId: id, versionId: version.body.id };
}

const create = (a: Caller, elements: unknown[], title = 'Top of hour') => a.call('createMolecule', { body: { title, elements } });
const createOk = (a: Caller, elements: unknown[], title = 'Top of hour') => a.ok<Molecule>('createMolecule', { body: { title, elements } });
const spans = (molecule: Molecule) => molecule.elements.map((e) => [e.startMs, e.endMs]);

test('a molecule resolves its elements to the primary versions, their cue points and durations, on every read', async () => {
  const a = h.tenant();
  const song = await withAudio(a, twoSeconds);
  const jingle = await withAudio(a, oneSecond);
  await a.ok('putVersionMarkers', {
    params: { id: song.entityId, versionId: song.versionId },
    body: {
      markers: [
        { type: 'cue_in', positionMs: 100 },
        { type: 'segue', positionMs: 1_500 },
        { type: 'cue_out', positionMs: 1_900 },
      ],
    },
  });
  const molecule = await createOk(a, [
    { entityId: song.entityId },
    { entityId: jingle.entityId, anchor: 'previous_next_track_start', offsetMs: -200 },
    { entityId: jingle.entityId, anchor: 'start', offsetMs: 300 },
  ]);
  expect(molecule.elements[0]).toEqual({
    position: 0,
    entityId: song.entityId,
    kind: 'AUDIO',
    anchor: 'previous_cue_out',
    offsetMs: 0,
    versionId: song.versionId,
    cueInMs: 100,
    cueOutMs: 1_900,
    nextTrackStartMs: 1_500,
    startMs: 0,
    endMs: 1_800,
    unresolved: null,
  });
  // The jingle starts 200 ms before the song's segue (1400 after its start), the third 300 ms into the molecule.
  expect(spans(molecule)).toEqual([
    [0, 1_800],
    [1_200, 2_200],
    [300, 1_300],
  ]);
  expect(molecule).toMatchObject({ durationMs: 2_200, complete: true });
  expect(await a.ok<Molecule>('getMolecule', { params: { id: molecule.id } })).toEqual(molecule);

  // A new primary version of the song: the timeline follows, no molecule write.
  const longer = await withAudio(a, twoSeconds, song.entityId);
  await a.ok('updateVersion', { params: { id: song.entityId, versionId: longer.versionId }, body: { isPrimary: true } });
  const followed = await a.ok<Molecule>('getMolecule', { params: { id: molecule.id } });
  expect(followed.elements[0]).toMatchObject({ versionId: longer.versionId, cueInMs: 0, cueOutMs: 2_000, nextTrackStartMs: 2_000 });
  expect(spans(followed)).toEqual([
    [0, 2_000],
    [1_800, 2_800],
    [300, 1_300],
  ]);
  expect(followed.updatedAt).toBe(molecule.updatedAt);
  expect((await h.outbox({ resourceId: molecule.id })).map((row) => [row.type, row.resource_kind, row.dmrn, row.data])).toEqual([
    ['molecule.created', 'molecule', null, { elementCount: 3 }],
  ]);
});

test('an entity without an AUDIO version is an unresolved element that takes no time', async () => {
  const a = h.tenant();
  const jingle = await withAudio(a, oneSecond);
  const empty = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'No audio yet' } });
  const molecule = await createOk(a, [{ entityId: empty.id }, { entityId: jingle.entityId, offsetMs: 50 }]);
  expect(molecule.elements.map((e) => [e.versionId, e.unresolved, e.startMs, e.endMs])).toEqual([
    [null, 'no_primary_version', null, null],
    [jingle.versionId, null, 50, 1_050],
  ]);
  expect(molecule).toMatchObject({ durationMs: 1_050, complete: false });
});

test('elements must name entities of the tenant; a negative offset from the start is refused', async () => {
  const a = h.tenant();
  const b = h.tenant();
  const own = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Mine' } });
  const other = await b.ok<Entity>('createEntity', { body: { type: 'song', title: 'Theirs' } });
  const foreign = errorOf(await create(a, [{ entityId: own.id }, { entityId: other.id }]));
  const missing = errorOf(await create(a, [{ entityId: own.id }, { entityId: '0190a1b2-0000-7000-8000-000000000001' }]));
  expect(foreign).toEqual(missing);
  expect(foreign).toMatchObject({ status: 404, code: 'not_found', message: 'entity not found' });
  expect(errorOf(await create(a, [{ entityId: own.id, anchor: 'start', offsetMs: -1 }]))).toMatchObject({
    status: 400,
    code: 'invalid_elements',
    details: { fields: [{ location: 'body', path: '/elements/0/offsetMs', message: 'must not be negative with anchor start' }] },
  });
  expect(errorOf(await create(a, []))).toMatchObject({ status: 400 });
  expect(await h.outbox({ tenantId: a.tenantId, type: 'molecule.created' })).toEqual([]);
});

test('PATCH changes title and elements with one molecule.updated naming them; a PATCH that changes nothing records nothing', async () => {
  const a = h.tenant();
  const one = await withAudio(a, oneSecond);
  const molecule = await createOk(a, [{ entityId: one.entityId }]);
  const same = await a.ok<Molecule>('updateMolecule', {
    params: { id: molecule.id },
    body: { title: 'Top of hour', elements: [{ entityId: one.entityId }] },
  });
  expect(same).toEqual(molecule);
  const changed = await a.ok<Molecule>('updateMolecule', {
    params: { id: molecule.id },
    body: { title: 'Half past', elements: [{ entityId: one.entityId }, { entityId: one.entityId, offsetMs: 10 }] },
  });
  expect(changed).toMatchObject({ title: 'Half past', durationMs: 2_010 });
  await a.ok('updateMolecule', { params: { id: molecule.id }, body: { title: 'Quarter to' } });
  expect((await h.outbox({ resourceId: molecule.id })).map((row) => [row.type, row.data])).toEqual([
    ['molecule.created', { elementCount: 1 }],
    ['molecule.updated', { changedFields: ['title', 'elements'], elementCount: 2 }],
    ['molecule.updated', { changedFields: ['title'], elementCount: 2 }],
  ]);
  await a.ok('deleteMolecule', { params: { id: molecule.id } });
  expect(errorOf(await a.call('getMolecule', { params: { id: molecule.id } }))).toMatchObject({ status: 404, code: 'not_found' });
  expect((await h.outbox({ resourceId: molecule.id, type: 'molecule.deleted' })).map((row) => row.data)).toEqual([
    { elementCount: 2, reason: 'deleted' },
  ]);
  // The entity stays.
  expect((await a.ok<Entity>('getEntity', { params: { id: one.entityId } })).id).toBe(one.entityId);
});

test('deleting an entity removes its elements in the same transaction: molecule.updated, or molecule.deleted for one left empty', async () => {
  const a = h.tenant();
  const song = await withAudio(a, twoSeconds);
  const jingle = await withAudio(a, oneSecond);
  const mixed = await createOk(a, [{ entityId: jingle.entityId }, { entityId: song.entityId }, { entityId: jingle.entityId }]);
  const onlyJingle = await createOk(a, [{ entityId: jingle.entityId }, { entityId: jingle.entityId }]);
  const untouched = await createOk(a, [{ entityId: song.entityId }]);

  await a.ok('deleteEntity', { params: { id: jingle.entityId } });
  const left = await a.ok<Molecule>('getMolecule', { params: { id: mixed.id } });
  expect(left.elements.map((e) => [e.position, e.entityId, e.startMs, e.endMs])).toEqual([[0, song.entityId, 0, 2_000]]);
  expect(errorOf(await a.call('getMolecule', { params: { id: onlyJingle.id } }))).toMatchObject({ status: 404 });
  expect(await a.ok<Molecule>('getMolecule', { params: { id: untouched.id } })).toEqual(untouched);

  const deletion = await h.outbox({ tenantId: a.tenantId });
  const entityDeleted = deletion.find((row) => row.type === 'entity.deleted')!;
  const cascade = deletion.filter((row) => row.tx_id === entityDeleted.tx_id).map((row) => [row.type, row.resource_id, row.data]);
  expect(cascade).toEqual(
    expect.arrayContaining([
      ['molecule.updated', mixed.id, { changedFields: ['elements'], elementCount: 1 }],
      ['molecule.deleted', onlyJingle.id, { elementCount: 2, reason: 'entity_deleted' }],
    ]),
  );
  expect(deletion.filter((row) => row.resource_id === untouched.id).map((row) => row.type)).toEqual(['molecule.created']);
});

test('an entity deleted while molecules naming it are created: every molecule holds only entities that exist', async () => {
  const a = h.tenant();
  const keep = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Kept' } });
  const doomed = await Promise.all(
    Array.from({ length: 6 }, () => a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Doomed' } })),
  );
  const answers = await Promise.all(
    doomed.flatMap((entity) => [
      create(a, [{ entityId: keep.id }, { entityId: entity.id }]),
      a.call('deleteEntity', { params: { id: entity.id } }),
    ]),
  );
  // And molecules whose elements change to name an entity while it is deleted (locks taken in one order: no deadlock).
  const more = await Promise.all(
    Array.from({ length: 6 }, () => a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Doomed' } })),
  );
  const patched = await Promise.all(more.map((entity) => createOk(a, [{ entityId: keep.id }, { entityId: entity.id }])));
  answers.push(
    ...(await Promise.all(
      more.flatMap((entity, i) => [
        a.call('updateMolecule', { params: { id: patched[i]!.id }, body: { elements: [{ entityId: entity.id }, { entityId: keep.id }] } }),
        a.call('deleteEntity', { params: { id: entity.id } }),
      ]),
    )),
  );
  expect(answers.filter((answer) => !answer.ok && errorOf(answer).status !== 404)).toEqual([]);
  const { rows } = await h.sql.query(
    `select count(*)::int as dangling from catalog.molecule_elements el
      where el.tenant_id = $1 and not exists (select 1 from catalog.entities e where e.id = el.entity_id)`,
    [a.tenantId],
  );
  expect(rows[0].dangling).toBe(0);
  const page = await a.ok<MoleculePage>('listMolecules', { query: {} });
  expect(page.molecules.every((m) => m.elements.map((e) => e.entityId).join() === keep.id)).toBe(true);
});

test('the listing pages by id within the tenant', async () => {
  const a = h.tenant();
  const one = await withAudio(a, oneSecond);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await createOk(a, [{ entityId: one.entityId }], `M${i}`)).id);
  const first = await a.ok<MoleculePage>('listMolecules', { query: { limit: 2 } });
  expect(first.molecules.map((m) => m.id)).toEqual(ids.slice(0, 2));
  expect(first.hasMore).toBe(true);
  const second = await a.ok<MoleculePage>('listMolecules', { query: { limit: 2, after: first.nextCursor } });
  expect(second).toMatchObject({ hasMore: false, nextCursor: null });
  expect(second.molecules.map((m) => [m.id, m.durationMs])).toEqual([[ids[2], 1_000]]);
  expect((await h.tenant().ok<MoleculePage>('listMolecules', { query: {} })).molecules).toEqual([]);
  expect(errorOf(await a.call('listMolecules', { query: { after: 'bogus' } }))).toMatchObject({ status: 400, code: 'invalid_cursor' });
});
