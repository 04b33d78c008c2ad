import { jetstreamManager } from '@nats-io/jetstream';
import { libraryConfig } from '@catalog/library';
import { readConfig, subjectsFor } from '@catalog/platform';
import { eventually, sineWav, startOwnNatsServer, testBus, type ApiClient, type OwnNatsServer } from '@catalog/testing';
import pg from 'pg';
import { confirmedVersion } from '../support/analyses.js';
import { apiClient } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * Part 6, rule 13 through the gateway (decision 0149): the library's events are recorded for the
 * library product's active subscribers only. A tenant without the product gets no projection work
 * and no `track.*` events; once the admin area enables the product, the library catches it up
 * (every entity it has, with its events) and follows it from then on.
 */
let nats: OwnNatsServer;
let sut: { system: RunningSystem; api: ApiClient; db: pg.Client };
beforeAll(async () => {
  // A NATS server of its own, with the permissions of this route table: a long-running shared
  // server may predate the gateway's getOrganizationProducts (its services then project every tenant).
  nats = await startOwnNatsServer();
  const system = await startSystem({ NATS_URL: nats.url });
  const db = new pg.Client({ connectionString: system.database.url });
  await db.connect();
  sut = { system, api: apiClient(system.baseUrl), db };
});
afterAll(async () => {
  await sut?.db.end();
  await sut?.system.stop();
  await nats?.stop();
});
const PERMISSIONS = ['catalog:api', 'library:api'];

let wav: Buffer;
beforeAll(async () => {
  wav = await sineWav(1, { sampleRate: 8_000 });
});

/** A song with an ONLINE primary audio version: what makes a track. */
const song = async (key: string, title: string): Promise<string> =>
  (await confirmedVersion(sut.api, wav, { key, entityType: 'song', title })).entityId;

/**
 * Waits until the library has handled every catalog event written so far: a song of a subscribing
 * tenant, written last, reaches its library (the catalog publishes its events in commit order),
 * and the library's consumer has nothing left to deliver or to be acked.
 */
async function libraryCaughtUp(): Promise<void> {
  const control = await sut.api.tenant({ products: ['catalog', 'library'], permissions: PERMISSIONS });
  const marker = await song(control.key, 'Marker');
  await eventually(
    async () =>
      (await sut.api.request('GET', `/api/v1/library/tracks/${marker}`, { key: control.key })).status === 200 ? true : undefined,
    30_000,
  );
  const subjects = subjectsFor(sut.system.env.NATS_PREFIX!);
  const nc = await testBus('library-subscribers', { url: nats.url });
  try {
    const jsm = await jetstreamManager(nc);
    const durable = readConfig(libraryConfig, sut.system.env).catalogEvents.durable;
    await eventually(async () => {
      const info = await jsm.consumers.info(subjects.eventsStream, durable);
      return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
    }, 30_000);
  } finally {
    await nc.close();
  }
}

/** What the library holds of the tenant: its tracks and its `track.*` events. */
async function libraryOf(tenantId: string): Promise<{ tracks: number; events: number }> {
  const count = async (table: string) =>
    Number((await sut.db.query<{ n: string }>(`select count(*) as n from library.${table} where tenant_id = $1`, [tenantId])).rows[0]!.n);
  return { tracks: await count('tracks'), events: await count('outbox') };
}

test('no library work or events for a tenant without the product; from the moment it is enabled, its library is complete', async () => {
  const station = await sut.api.tenant({ products: ['catalog'], permissions: PERMISSIONS });
  const subscriber = await sut.api.tenant({ products: ['catalog', 'library'], permissions: PERMISSIONS });
  const before = await song(station.key, 'Before');
  const theirs = await song(subscriber.key, 'Theirs');
  await libraryCaughtUp();

  expect(await libraryOf(station.orgId)).toEqual({ tracks: 0, events: 0 });
  expect(await libraryOf(subscriber.orgId)).toMatchObject({ tracks: 1 });
  expect((await sut.api.request('GET', `/api/v1/library/tracks/${theirs}`, { key: subscriber.key })).status).toBe(200);
  expect((await sut.api.request('GET', '/api/v1/library/tracks', { key: station.key })).status).toBe(402);

  const enabledAt = new Date();
  const enabled = await sut.api.admin('PATCH', `/admin/v1/organizations/${station.orgId}`, { products: ['catalog', 'library'] });
  expect(enabled.status).toBe(200);

  // Caught up without another write of the tenant: the entity it had is a track, with its event.
  const track = await eventually(async () => {
    const found = await sut.api.request('GET', `/api/v1/library/tracks/${before}`, { key: station.key });
    return found.status === 200 ? found.body : undefined;
  }, 30_000);
  expect(track).toMatchObject({ entityId: before, title: 'Before' });
  const events = await eventually(async () => {
    const page = await sut.api.request('GET', '/api/v1/library/events', { key: station.key });
    return page.body.events?.length > 0 ? page.body.events : undefined;
  }, 30_000);
  expect(events.map((e: { type: string; resourceId: string }) => [e.type, e.resourceId])).toEqual([['track.added', before]]);
  expect(Date.parse(events[0].occurredAt)).toBeGreaterThanOrEqual(enabledAt.getTime() - 1_000);

  // And followed from then on.
  const after = await song(station.key, 'After');
  await eventually(
    async () => ((await sut.api.request('GET', `/api/v1/library/tracks/${after}`, { key: station.key })).status === 200 ? true : undefined),
    30_000,
  );
});

test('a tenant whose product is disabled is projected no more', async () => {
  const station = await sut.api.tenant({ products: ['catalog', 'library'], permissions: PERMISSIONS });
  await song(station.key, 'While subscribed');
  await libraryCaughtUp();
  expect(await libraryOf(station.orgId)).toMatchObject({ tracks: 1 });

  expect((await sut.api.admin('PATCH', `/admin/v1/organizations/${station.orgId}`, { products: ['catalog'] })).status).toBe(200);
  // The gateway's notice reaches the library at once; a lost one within its recheck (10 s).
  await eventually(async () => {
    await song(station.key, 'Probe');
    await libraryCaughtUp();
    const held = await libraryOf(station.orgId);
    return held.tracks < (await sut.api.request('GET', '/api/v1/catalog/entities?limit=100', { key: station.key })).body.entities.length
      ? held
      : undefined;
  }, 30_000);
  const skippedFrom = await libraryOf(station.orgId);
  await song(station.key, 'After');
  await libraryCaughtUp();
  expect(await libraryOf(station.orgId)).toEqual(skippedFrom);
});
