import { createHash } from 'node:crypto';
import { eventually, sineWav } from '@catalog/testing';
import { confirmUpload, expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

/**
 * Issue 26 through the gateway: a playout connector's whole loop (decisions 0132, 0133). The
 * station assigns a song; the connector, with a key bound to the integration, finds it pending,
 * syncs it, reports synced; a primary change makes it pending again in the version's transaction;
 * a report of the former primary leaves it pending; the report of the new one syncs it. A failed
 * sync carries the connector's reason; health reports and a missed heartbeat show on the
 * integration; the library filters by integration and sync state; and the feed has every event,
 * in order, the connector's writes under the integration's name.
 */
const sut = useSystem({ env: { CATALOG_HEARTBEAT_SWEEP_INTERVAL_MS: '200' } });
const BOTH = { products: ['catalog', 'library'], permissions: ['catalog:api', 'library:api'] };
const TYPES = [
  'integration.created',
  'integration.updated',
  'integration.health_changed',
  'assignment.created',
  'assignment.deleted',
  'assignment.sync_state_changed',
].join(',');

let wav: Buffer;
beforeAll(async () => {
  wav = await sineWav(1);
});

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** An AUDIO version from a new upload, uploaded and confirmed. */
async function addAudio(key: string, entityId: string, isPrimary?: boolean): Promise<{ id: string }> {
  const created = await sut.api.request('POST', `/api/v1/catalog/entities/${entityId}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length, checksum: `sha256:${sha256(wav)}` } },
      label: 'Radio edit',
      versionType: 'radio_edit',
      ...(isPrimary === undefined ? {} : { isPrimary }),
    },
  });
  expect(created.status).toBe(201);
  const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav });
  expect(put.status).toBeLessThan(300);
  expect((await confirmUpload(sut.api, key, created.body.asset.id)).status).toBe(200);
  return created.body;
}

/** The station: a tenant with an operator key; the connector: a key of its own, bound to the integration's name. */
async function station() {
  const operator = await sut.api.tenant(BOTH);
  const connector = await sut.api.apiKey(operator.orgId, { name: 'mAirList connector' });
  const created = await sut.api.request('POST', '/api/v1/catalog/integrations', {
    key: operator.key,
    headers: { 'Idempotency-Key': 'connect-studio-a' },
    body: { name: 'playout-studio-a', kind: 'playout', system: 'mAirList' },
  });
  expect(created.status).toBe(201);
  const replay = await sut.api.request('POST', '/api/v1/catalog/integrations', {
    key: operator.key,
    headers: { 'Idempotency-Key': 'connect-studio-a' },
    body: { name: 'playout-studio-a', kind: 'playout', system: 'mAirList' },
  });
  expect({ status: replay.status, body: replay.body, replayed: replay.headers.get('idempotent-replayed') }).toEqual({
    status: 201,
    body: created.body,
    replayed: 'true',
  });
  const bound = await sut.api.admin('PUT', `/admin/v1/api-keys/${connector.keyId}/source-system`, { integrationId: created.body.id });
  expect(bound.status).toBe(200);
  return { operator, connector, integration: created.body as { id: string; name: string } };
}

const song = async (key: string, title: string): Promise<string> =>
  (await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title, artist: 'The Testers' } })).body.id;

test('the connector loop: assign, pending, synced, primary change, pending, synced; failed with its reason; health and a missed heartbeat', async () => {
  const { operator, connector, integration } = await station();
  const base = `/api/v1/catalog/integrations/${integration.id}`;
  const entityId = await song(operator.key, 'On air');
  const first = await addAudio(operator.key, entityId);

  // The station assigns the song: pending. Assigning again changes nothing.
  const assigned = await sut.api.request('PUT', `${base}/assignments/${entityId}`, { key: operator.key });
  expect(assigned.status).toBe(200);
  expect(assigned.body).toMatchObject({ integrationId: integration.id, entityId, syncState: 'pending', versionIds: [] });
  expect((await sut.api.request('PUT', `${base}/assignments/${entityId}`, { key: operator.key })).body).toEqual(assigned.body);

  // The connector finds it pending, takes the primary version and reports it synced.
  const pending = await sut.api.request('GET', `${base}/assignments?syncState=pending`, { key: connector.key });
  expect(pending.body).toEqual({ assignments: [assigned.body], nextCursor: null, hasMore: false });
  const synced = await sut.api.request('POST', `${base}/assignments/${entityId}/sync`, {
    key: connector.key,
    body: { state: 'synced', versionIds: [first.id], externalId: 'MAIRLIST-42' },
  });
  expect(synced.status).toBe(200);
  expect(synced.body).toMatchObject({ syncState: 'synced', versionIds: [first.id], externalId: 'MAIRLIST-42', error: null });
  expect((await sut.api.request('GET', base, { key: operator.key })).body.assignments).toEqual({ pending: 0, synced: 1, failed: 0 });

  // The library shows what is on the integration, by sync state.
  const tracks = async (query: string): Promise<string[]> =>
    (
      await sut.api.request('GET', `/api/v1/library/tracks?integrationId=${integration.id}&${query}`, { key: operator.key })
    ).body.tracks.map((t: { entityId: string }) => t.entityId);
  await eventually(async () => ((await tracks('syncState=synced')).includes(entityId) ? true : undefined), 20_000, 250);
  expect(await tracks('syncState=pending')).toEqual([]);

  // Another primary: pending again. The connector's report of the former one leaves it pending.
  const second = await addAudio(operator.key, entityId, true);
  const again = await sut.api.request('GET', `${base}/assignments?syncState=pending`, { key: connector.key });
  expect(again.body.assignments.map((a: { entityId: string }) => a.entityId)).toEqual([entityId]);
  const stale = await sut.api.request('POST', `${base}/assignments/${entityId}/sync`, {
    key: connector.key,
    body: { state: 'synced', versionIds: [first.id] },
  });
  expect(stale.body).toMatchObject({ syncState: 'pending', versionIds: [first.id], externalId: 'MAIRLIST-42' });
  const resynced = await sut.api.request('POST', `${base}/assignments/${entityId}/sync`, {
    key: connector.key,
    body: { state: 'synced', versionIds: [second.id] },
  });
  expect(resynced.body).toMatchObject({ syncState: 'synced', versionIds: [second.id] });

  // A song the connector cannot take: failed, with its reason.
  const other = await song(operator.key, 'Too long');
  const otherVersion = await addAudio(operator.key, other);
  expect((await sut.api.request('PUT', `${base}/assignments/${other}`, { key: operator.key })).status).toBe(200);
  const failed = await sut.api.request('POST', `${base}/assignments/${other}/sync`, {
    key: connector.key,
    body: { state: 'failed', versionIds: [otherVersion.id], error: 'cart number range full' },
  });
  expect(failed.body).toMatchObject({ syncState: 'failed', error: 'cart number range full' });
  expectError(
    await sut.api.request('POST', `${base}/assignments/${other}/sync`, { key: connector.key, body: { state: 'failed' } }),
    400,
    'invalid_report',
  );

  // Health: reported, then a heartbeat missed: down by itself.
  const healthy = await sut.api.request('POST', `${base}/health`, { key: connector.key, body: { status: 'healthy', message: 'on air' } });
  expect(healthy.body.health).toMatchObject({ status: 'healthy', message: 'on air' });
  expect((await sut.api.request('PATCH', base, { key: operator.key, body: { heartbeatSeconds: 1 } })).status).toBe(200);
  const down = await eventually(
    async () => {
      const read = await sut.api.request('GET', base, { key: operator.key });
      return read.body.health.status === 'down' ? read.body : undefined;
    },
    20_000,
    250,
  );
  expect(down).toMatchObject({ health: { status: 'down' }, assignments: { pending: 0, synced: 1, failed: 1 } });

  // The feed: every event in order; the connector's writes under the integration's name.
  const events = await eventually(
    async () => {
      const page = await sut.api.request('GET', `/api/v1/catalog/events?limit=500&types=${TYPES}`, { key: operator.key });
      expect(page.status).toBe(200);
      const list = page.body.events as Array<{ type: string; sourceSystem: string; resourceId: string; data: Record<string, unknown> }>;
      return list.some((e) => e.type === 'integration.health_changed' && e.data.status === 'down') ? list : undefined;
    },
    20_000,
    1_000,
  );
  const own = `public-api:${operator.keyId}`;
  expect(events.map((e) => [e.type, e.data.state ?? e.data.status ?? null, e.data.reason ?? null, e.sourceSystem])).toEqual([
    ['integration.created', null, null, own],
    ['assignment.created', null, null, own],
    ['assignment.sync_state_changed', 'synced', null, integration.name],
    ['assignment.sync_state_changed', 'pending', 'primary_changed', own],
    ['assignment.sync_state_changed', 'synced', null, integration.name],
    ['assignment.created', null, null, own],
    ['assignment.sync_state_changed', 'failed', 'cart number range full', integration.name],
    ['integration.health_changed', 'healthy', 'reported', integration.name],
    ['integration.updated', null, null, own],
    ['integration.health_changed', 'down', 'heartbeat_missed', 'catalog'],
  ]);
  expect(events[3]!.data).toMatchObject({ entityId, previous: 'synced', versionIds: [second.id] });
});

test('deleting the entity removes its assignments; deleting the integration removes the rest, each with assignment.deleted', async () => {
  const { operator, integration } = await station();
  const base = `/api/v1/catalog/integrations/${integration.id}`;
  const [gone, kept] = [await song(operator.key, 'Gone'), await song(operator.key, 'Kept')];
  for (const id of [gone, kept])
    expect((await sut.api.request('PUT', `${base}/assignments/${id}`, { key: operator.key })).status).toBe(200);
  expect((await sut.api.request('DELETE', `/api/v1/catalog/entities/${gone}`, { key: operator.key })).status).toBe(204);
  const left = await sut.api.request('GET', `${base}/assignments`, { key: operator.key });
  expect(left.body.assignments.map((a: { entityId: string }) => a.entityId)).toEqual([kept]);
  expect((await sut.api.request('DELETE', base, { key: operator.key })).status).toBe(204);
  expectError(await sut.api.request('GET', `${base}/assignments`, { key: operator.key }), 404, 'not_found');
  const deletions = await eventually(
    async () => {
      const page = await sut.api.request('GET', `/api/v1/catalog/events?limit=500&types=assignment.deleted,integration.deleted`, {
        key: operator.key,
      });
      return page.body.events?.length === 3 ? page.body.events : undefined;
    },
    20_000,
    1_000,
  );
  expect(
    deletions.map((e: { type: string; data: Record<string, unknown> }) => [e.type, e.data.entityId ?? null, e.data.reason ?? null]),
  ).toEqual([
    ['assignment.deleted', gone, 'entity_deleted'],
    ['assignment.deleted', kept, 'integration_deleted'],
    ['integration.deleted', null, null],
  ]);
});
