import type { FeedEvent } from '@catalog/contracts';
import { eventually, sineWav } from '@catalog/testing';
import { confirmedVersion } from '../support/analyses.js';
import { confirmUpload, expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

/**
 * Molecules through the gateway (decision 0137): elements resolve to the primary AUDIO
 * versions of their entities, with the cue points the analyses found; the timeline follows a
 * primary change; deleting an entity removes its elements; the events reach the feed in order.
 */
const sut = useSystem({ env: { ANALYSIS_CONCURRENCY: '2' } });

const MOLECULE_EVENTS = 'molecule.created,molecule.updated,molecule.deleted,entity.deleted';

interface Marker {
  type: string;
  positionMs: number;
}

/** The primary AUDIO version of an entity once its file is ONLINE with a duration (and markers, when `withMarkers`). */
async function primaryAudio(
  key: string,
  entityId: string,
  withMarkers: boolean,
): Promise<{ id: string; durationMs: number; markers: Marker[] }> {
  return eventually(async () => {
    const page = await sut.api.request('GET', `/api/v1/catalog/entities/${entityId}/versions?kind=AUDIO`, { key });
    const version = page.body.versions?.find((v: { isPrimary: boolean }) => v.isPrimary);
    if (!version || version.durationMs === null || (withMarkers && version.markers.length === 0)) return undefined;
    return version;
  }, 60_000);
}

const at = (markers: Marker[], type: string): number | undefined => markers.find((m) => m.type === type)?.positionMs;

test('a molecule of analysed audio: timeline from cue points, primary change, entity deletion, events in the feed', async () => {
  const { orgId, key } = await sut.api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  await sut.api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 10, reason: 'test' });
  const songType = await sut.api.request('PUT', '/api/v1/catalog/entity-types/song', {
    key,
    body: { automaticAnalyses: ['cue_points'], cuePointMarkers: true },
  });
  expect(songType.status).toBe(200);
  const three = await sineWav(3, { sampleRate: 8_000 });
  const one = await sineWav(1, { sampleRate: 8_000 });
  const song = await confirmedVersion(sut.api, three, { key, entityType: 'song', dmrn: 'DM-MOLECULE-SONG' });
  const jingle = await confirmedVersion(sut.api, one, { key, entityType: 'jingle', dmrn: 'DM-MOLECULE-JINGLE' });
  // The song's cue points come from its cue_points analysis; the jingle has none: its whole file plays.
  const songVersion = await primaryAudio(key, song.entityId, true);
  const jingleVersion = await primaryAudio(key, jingle.entityId, false);
  const cueIn = at(songVersion.markers, 'cue_in') ?? 0;
  const cueOut = at(songVersion.markers, 'cue_out') ?? songVersion.durationMs;
  const segue = at(songVersion.markers, 'segue') ?? cueOut;

  const body = {
    title: 'Top of hour',
    elements: [{ entityId: song.entityId }, { entityId: jingle.entityId, anchor: 'previous_next_track_start', offsetMs: -500 }],
  };
  const headers = { 'Idempotency-Key': 'molecule-top-of-hour' };
  const created = await sut.api.request('POST', '/api/v1/catalog/molecules', { key, body, headers });
  expect(created.status).toBe(201);
  const retried = await sut.api.request('POST', '/api/v1/catalog/molecules', { key, body, headers });
  expect({ status: retried.status, replayed: retried.headers.get('idempotent-replayed'), id: retried.body.id }).toEqual({
    status: 201,
    replayed: 'true',
    id: created.body.id,
  });
  const moleculeId = created.body.id as string;
  const jingleStart = Math.max(0, segue - cueIn - 500);
  const read = await sut.api.request('GET', `/api/v1/catalog/molecules/${moleculeId}`, { key });
  expect(read.body).toEqual(created.body);
  expect(read.body).toMatchObject({
    title: 'Top of hour',
    complete: true,
    durationMs: Math.max(cueOut - cueIn, jingleStart + jingleVersion.durationMs),
    elements: [
      { position: 0, entityId: song.entityId, versionId: songVersion.id, cueInMs: cueIn, cueOutMs: cueOut, nextTrackStartMs: segue },
      {
        position: 1,
        entityId: jingle.entityId,
        anchor: 'previous_next_track_start',
        offsetMs: -500,
        versionId: jingleVersion.id,
        cueInMs: 0,
        cueOutMs: jingleVersion.durationMs,
        startMs: jingleStart,
        endMs: jingleStart + jingleVersion.durationMs,
        unresolved: null,
      },
    ],
  });
  expect(read.body.elements[0]).toMatchObject({ startMs: 0, endMs: cueOut - cueIn });

  // A new primary version of the jingle, with cue points set by hand: the timeline follows on read.
  const added = await sut.api.request('POST', `/api/v1/catalog/entities/${jingle.entityId}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'short.wav', contentType: 'audio/wav', size: three.length } },
      label: 'Short',
      versionType: 'intro_edit',
      isPrimary: true,
    },
  });
  expect(added.status).toBe(201);
  expect((await fetch(added.body.upload.url, { method: 'PUT', headers: added.body.upload.headers, body: three })).status).toBe(200);
  expect((await confirmUpload(sut.api, key, added.body.asset.id)).status).toBe(200);
  const cues = [
    { type: 'cue_in', positionMs: 200 },
    { type: 'cue_out', positionMs: 1_400 },
  ];
  const markers = await sut.api.request('PUT', `/api/v1/catalog/entities/${jingle.entityId}/versions/${added.body.id}/markers`, {
    key,
    body: { markers: cues },
  });
  expect(markers.status).toBe(200);
  const followed = (await sut.api.request('GET', `/api/v1/catalog/molecules/${moleculeId}`, { key })).body;
  expect(followed.elements[1]).toMatchObject({
    versionId: added.body.id,
    cueInMs: 200,
    cueOutMs: 1_400,
    startMs: jingleStart,
    endMs: jingleStart + 1_200,
  });
  expect(followed.updatedAt).toBe(created.body.updatedAt);

  // Deleting the jingle's entity: it leaves the first molecule and deletes one that held only it.
  const onlyJingle = await sut.api.request('POST', '/api/v1/catalog/molecules', {
    key,
    body: { title: 'Jingle', elements: [{ entityId: jingle.entityId }] },
  });
  expect(onlyJingle.status).toBe(201);
  expect((await sut.api.request('DELETE', `/api/v1/catalog/entities/${jingle.entityId}`, { key })).status).toBe(204);
  const after = (await sut.api.request('GET', `/api/v1/catalog/molecules/${moleculeId}`, { key })).body;
  expect(after.elements.map((e: { entityId: string }) => e.entityId)).toEqual([song.entityId]);
  expect(after.durationMs).toBe(cueOut - cueIn);
  expectError(await sut.api.request('GET', `/api/v1/catalog/molecules/${onlyJingle.body.id}`, { key }), 404, 'not_found');
  const listed = await sut.api.request('GET', '/api/v1/catalog/molecules', { key });
  expect(listed.body).toMatchObject({ hasMore: false, nextCursor: null });
  expect(listed.body.molecules.map((m: { id: string }) => m.id)).toEqual([moleculeId]);

  // The events, in the feed's order: the deletion's molecule events are in the entity's transaction, before entity.deleted.
  const feed = await eventually(async () => {
    const page = await sut.api.request<{ events?: FeedEvent[] }>('GET', `/api/v1/catalog/events?types=${MOLECULE_EVENTS}`, { key });
    return page.body.events?.length === 5 ? page.body.events : undefined;
  }, 30_000);
  expect(feed.map((e) => [e.type, e.resourceKind, e.resourceId, e.dmrn, e.data])).toEqual([
    ['molecule.created', 'molecule', moleculeId, null, { elementCount: 2 }],
    ['molecule.created', 'molecule', onlyJingle.body.id, null, { elementCount: 1 }],
    ['molecule.updated', 'molecule', moleculeId, null, { changedFields: ['elements'], elementCount: 1 }],
    ['molecule.deleted', 'molecule', onlyJingle.body.id, null, { elementCount: 1, reason: 'entity_deleted' }],
    ['entity.deleted', 'entity', jingle.entityId, 'DM-MOLECULE-JINGLE', {}],
  ]);
  expect(new Set(feed.slice(2).map((e) => e.batchId)).size).toBe(1);
});

test('bad elements are a 4xx: another tenant’s entity like a missing one, a negative offset from the start, too many elements', async () => {
  const a = await sut.api.tenant();
  const b = await sut.api.tenant();
  const own = (await sut.api.request('POST', '/api/v1/catalog/entities', { key: a.key, body: { type: 'song', title: 'A' } })).body;
  const theirs = (await sut.api.request('POST', '/api/v1/catalog/entities', { key: b.key, body: { type: 'song', title: 'B' } })).body;
  const create = (elements: unknown[]) =>
    sut.api.request('POST', '/api/v1/catalog/molecules', { key: a.key, body: { title: 'Bad', elements } });
  const foreign = await create([{ entityId: own.id }, { entityId: theirs.id }]);
  expectError(foreign, 404, 'not_found');
  expect(foreign.body.error.message).toBe('entity not found');
  expectError(await create([{ entityId: own.id, anchor: 'start', offsetMs: -1 }]), 400, 'invalid_elements');
  expectError(await create([]), 400, 'invalid_body');
  expectError(await create(Array.from({ length: 51 }, () => ({ entityId: own.id }))), 400, 'invalid_body');
  expectError(await create([{ entityId: own.id, kind: 'VIDEO' }]), 400, 'invalid_body');
  expectError(await create([{ entityId: own.id, anchor: 'middle' }]), 400, 'invalid_body');
  const fifty = await create(Array.from({ length: 50 }, () => ({ entityId: own.id })));
  expect(fifty.status).toBe(201);
  expect(fifty.body).toMatchObject({ complete: false, durationMs: 0 });
  expect(fifty.body.elements.every((e: { unresolved: string }) => e.unresolved === 'no_primary_version')).toBe(true);
  const patch = await sut.api.request('PATCH', `/api/v1/catalog/molecules/${fifty.body.id}`, { key: a.key, body: {} });
  expectError(patch, 400, 'invalid_body');
  expect((await sut.api.request('GET', '/api/v1/catalog/molecules', { key: b.key })).body.molecules).toEqual([]);
});
