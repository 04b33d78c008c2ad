import { jetstreamManager } from '@nats-io/jetstream';
import { subjectsFor, type NatsConnection, type Subjects } from '@catalog/platform';
import { eventually, sineWav, testBus } from '@catalog/testing';
import { confirmedVersion, type ConfirmedVersion } from '../support/analyses.js';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';

/**
 * Issue 24, item 2 (decision 0115): a client that follows the interface's steps (POST a version
 * with an upload, PUT the bytes, confirm) sees its own write as soon as the confirmation has
 * answered: the version listing shows the file ONLINE, the entity its primaryAudioVersion, and
 * the entity can be analysed (202, not 409 source_not_online). The catalog learns it from the
 * confirmation itself; the asset event that arrives afterwards changes nothing and requests the
 * automatic analyses no second time. Repeated, because the former gap was a race with that event.
 */
const sut = useSystem({ env: { ...PATIENT_CALLS, ANALYSIS_CONCURRENCY: '1' }, database: true });
const ROUNDS = 8;
let wav: Buffer;
let nc: NatsConnection;
let subjects: Subjects;

beforeAll(async () => {
  wav = await sineWav(1, { sampleRate: 8_000 });
  nc = await testBus('confirm-then-read');
  subjects = subjectsFor(sut.system.env.NATS_PREFIX!);
});
afterAll(async () => {
  await nc?.drain();
});

/** Entity, version from an upload, PUT, confirm; then at once the reads a client makes next. */
async function confirmThenRead(key: string, round: number): Promise<ConfirmedVersion> {
  const { api } = sut;
  const confirmed = await confirmedVersion(api, wav, { key, entityType: 'song', dmrn: `DM-RYW-${round}` });
  const { entityId, versionId, assetId } = confirmed;

  const listed = await api.request('GET', `/api/v1/catalog/entities/${entityId}/versions`, { key });
  expect({ round, versions: listed.body.versions.map((v: { id: string; asset: { status: string } }) => [v.id, v.asset.status]) }).toEqual({
    round,
    versions: [[versionId, 'ONLINE']],
  });
  const read = await api.request('GET', `/api/v1/catalog/entities/${entityId}`, { key });
  expect({ round, primaryAudioVersion: read.body.primaryAudioVersion }).toEqual({
    round,
    primaryAudioVersion: { id: versionId, label: 'Edit', versionType: 'radio_edit', durationMs: expect.any(Number), assetId },
  });
  const analysis = await api.request('POST', '/api/v1/catalog/analyses', { key, body: { type: 'loudness', source: { entityId } } });
  expect({ round, status: analysis.status, error: analysis.body.error?.code }).toEqual({ round, status: 202, error: undefined });
  expect(analysis.body).toMatchObject({ resolved: { entityId, versionId, assetId } });
  return confirmed;
}

/** Waits until every event `schema` recorded so far is on the events stream and `durable` has applied (acked) all it takes of it. */
async function untilApplied(schema: string, durable: string): Promise<void> {
  await eventually(async () => {
    const { rows } = await sut.db.query(`select count(*)::int as unpublished from ${schema}.outbox where published_at is null`);
    return rows[0].unpublished === 0 ? true : undefined;
  }, 30_000);
  const jsm = await jetstreamManager(nc);
  await eventually(async () => {
    const info = await jsm.consumers.info(subjects.eventsStream, durable);
    return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
  }, 30_000);
}

test('after confirm answers, every read and an analysis of the entity see the file ONLINE; the later asset event adds nothing', async () => {
  const { api } = sut;
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  expect((await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 1000, reason: 'test' })).status).toBe(201);
  expect((await api.request('PUT', '/api/v1/catalog/entity-types/song', { key, body: { automaticAnalyses: ['technical'] } })).status).toBe(
    200,
  );
  const rounds: ConfirmedVersion[] = [];
  for (let round = 0; round < ROUNDS; round += 1) rounds.push(await confirmThenRead(key, round));

  // The asset events (asset.confirmed among them) reach the catalog after the confirmations did…
  await untilApplied('asset', 'catalog-asset-events');
  const { rows: states } = await sut.db.query(
    'select count(*)::int as online from catalog.asset_states where asset_id = any($1) and status = $2',
    [rounds.map((r) => r.assetId), 'ONLINE'],
  );
  expect(states[0].online).toBe(ROUNDS);
  // …and record no catalog event a second time: one analyses request per version, one automatic job per entity.
  const { rows: requested } = await sut.db.query(
    "select resource_id, count(*)::int as n from catalog.outbox where type = 'version.analyses_requested' group by resource_id",
  );
  expect(requested.map((r) => [r.resource_id, r.n]).sort()).toEqual(rounds.map((r) => [r.versionId, 1]).sort());
  await untilApplied('catalog', 'analysis-requested-events');
  for (const { entityId, versionId } of rounds) {
    const page = await api.request('GET', `/api/v1/catalog/analyses?entityId=${entityId}`, { key });
    const jobs = (page.body.analyses as { type: string; resolved: { versionId: string } }[])
      .map((job) => [job.type, job.resolved.versionId])
      .sort();
    expect({ entityId, jobs }).toEqual({
      entityId,
      jobs: [
        ['loudness', versionId],
        ['technical', versionId],
      ],
    });
  }
});
