import { jetstreamManager } from '@nats-io/jetstream';
import { analysisConfig } from '@catalog/analysis';
import { decodeBusEvent, readConfig, subjectsFor } from '@catalog/platform';
import { eventually, publishEvent, sineWav, testBus, untilConsumerSettled } from '@catalog/testing';
import { confirmedVersion } from '../support/analyses.js';
import { apiClient, confirmUpload } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * Automatic analyses through the gateway (decision 0088): an AUDIO version
 * whose file is confirmed ONLINE queues the entity type's automatic analyses, charging credits;
 * one the balance cannot pay is recorded FAILED insufficient_credits; cue points become the
 * version's markers where the entity type asks for it.
 */
let system: RunningSystem;
let api: ReturnType<typeof apiClient>;
let wav: Buffer;

beforeAll(async () => {
  system = await startSystem({ ANALYSIS_CONCURRENCY: '2' });
  api = apiClient(system.baseUrl);
  wav = await sineWav(3, { sampleRate: 8_000 });
});
afterAll(async () => {
  await system.stop();
});

const versionConfirmed = (key: string, entityType: string, dmrn: string) => confirmedVersion(api, wav, { key, entityType, dmrn });

const jobsOf = (key: string, entityId: string, count: number) =>
  eventually(async () => {
    const page = await api.request('GET', `/api/v1/catalog/analyses?entityId=${entityId}`, { key });
    const jobs: any[] = page.body.analyses ?? [];
    return jobs.length === count && jobs.every((j) => j.status === 'SUCCEEDED' || j.status === 'FAILED') ? jobs : undefined;
  }, 60_000);

test('after confirm the entity type’s automatic analyses run and are charged; cue points become the version’s markers', async () => {
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 4, reason: 'test' });
  const put = await api.request('PUT', '/api/v1/catalog/entity-types/song', {
    key,
    body: { automaticAnalyses: ['loudness', 'cue_points'], cuePointMarkers: true },
  });
  expect(put.body).toMatchObject({ automaticAnalyses: ['loudness', 'cue_points'], cuePointMarkers: true });
  const { entityId, versionId, assetId } = await versionConfirmed(key, 'song', 'DM-AUTO-1');

  const jobs = await jobsOf(key, entityId, 2);
  expect(jobs.map((j) => [j.type, j.status, j.creditsCharged]).sort()).toEqual([
    ['cue_points', 'SUCCEEDED', 2],
    ['loudness', 'SUCCEEDED', 2],
  ]);
  expect(jobs[0]).toMatchObject({ source: { versionId }, resolved: { assetId, entityId, versionId } });
  expect((await api.request('GET', '/api/v1/catalog/credits', { key })).body).toMatchObject({ balance: 0, reserved: 0 });

  const markers = await eventually(async () => {
    const version = await api.request('GET', `/api/v1/catalog/entities/${entityId}/versions/${versionId}`, { key });
    return version.body.markers?.length > 0 ? version.body.markers : undefined;
  }, 30_000);
  expect(markers.map((m: { type: string }) => m.type)).toEqual(expect.arrayContaining(['cue_in', 'cue_out']));

  const succeeded = await eventually(async () => {
    const page = await api.request('GET', '/api/v1/catalog/events?types=analysis.succeeded', { key });
    return page.body.events?.length === 2 ? page.body.events : undefined;
  }, 30_000);
  expect(succeeded[0]).toMatchObject({ dmrn: 'DM-AUTO-1', data: { entityId, versionId, assetId, status: 'SUCCEEDED' } });
});

test('an automatic analysis the balance cannot pay is recorded FAILED insufficient_credits, and nothing is charged', async () => {
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 1, reason: 'test' });
  await api.request('PUT', '/api/v1/catalog/entity-types/jingle', { key, body: { automaticAnalyses: ['tempo'] } });
  const { entityId } = await versionConfirmed(key, 'jingle', 'DM-AUTO-2');

  const [job] = await jobsOf(key, entityId, 1);
  expect(job).toMatchObject({ type: 'tempo', status: 'FAILED', creditsCharged: 0, error: { code: 'insufficient_credits' } });
  expect((await api.request('GET', '/api/v1/catalog/credits', { key })).body).toMatchObject({ balance: 1, reserved: 0 });
  const failed = await eventually(async () => {
    const page = await api.request('GET', '/api/v1/catalog/events?types=analysis.failed', { key });
    return page.body.events?.length === 1 ? page.body.events : undefined;
  }, 30_000);
  expect(failed[0]).toMatchObject({ dmrn: 'DM-AUTO-2', data: { jobId: job.jobId, errorCode: 'insufficient_credits', credits: 0 } });
});

test('a version added from an ONLINE audio file already uploaded queues the automatic analyses too', async () => {
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 10, reason: 'test' });
  await api.request('PUT', '/api/v1/catalog/entity-types/promo', { key, body: { automaticAnalyses: ['technical'] } });
  const asset = await api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'promo.wav', contentType: 'audio/wav', size: wav.length } },
  });
  expect((await fetch(asset.body.upload.url, { method: 'PUT', headers: asset.body.upload.headers, body: wav })).status).toBe(200);
  expect((await confirmUpload(api, key, asset.body.id)).status).toBe(200);
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'promo', title: 'Promo' } })).body;
  const version = await api.request('POST', `/api/v1/catalog/entities/${entity.id}/versions`, {
    key,
    body: { source: { assetId: asset.body.id }, label: 'Promo', versionType: 'station_intro' },
  });
  expect(version.status).toBe(201);

  const [job] = await jobsOf(key, entity.id, 1);
  expect(job).toMatchObject({
    type: 'technical',
    status: 'SUCCEEDED',
    creditsCharged: 1,
    resolved: { assetId: asset.body.id, entityId: entity.id, versionId: version.body.id },
  });
  expect((await api.request('GET', `/api/v1/catalog/analyses?assetId=${asset.body.id}`, { key })).body.analyses).toHaveLength(1);
});

test('the same version.analyses_requested delivered twice more makes no second job and no second charge', async () => {
  const { orgId, key } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 10, reason: 'test' });
  await api.request('PUT', '/api/v1/catalog/entity-types/bumper', { key, body: { automaticAnalyses: ['technical'] } });
  const { entityId, versionId } = await versionConfirmed(key, 'bumper', 'DM-AUTO-4');
  const [job] = await jobsOf(key, entityId, 1);
  expect(job).toMatchObject({ type: 'technical', status: 'SUCCEEDED', creditsCharged: 1 });

  // The event as the catalog's relay published it, published again twice (no Nats-Msg-Id: as a
  // relay that publishes it again after the stream's duplicate window, or a redelivery, would).
  const subjects = subjectsFor(system.env.NATS_PREFIX!);
  const nc = await testBus('analyses-automatic-redelivery');
  try {
    const subject = subjects.events('catalog', 'version.analyses_requested');
    const original = await (await jetstreamManager(nc)).streams.getMessage(subjects.eventsStream, { last_by_subj: subject });
    expect(decodeBusEvent(original!.data)).toMatchObject({ tenantId: orgId, resourceId: versionId });
    await publishEvent(nc, subjects, { type: 'version.analyses_requested', bytes: original!.data });
    const seq = await publishEvent(nc, subjects, { type: 'version.analyses_requested', bytes: original!.data });
    const { durable } = readConfig(analysisConfig, system.env).analysesRequested;
    await untilConsumerSettled(nc, subjects, durable, seq, 30_000);
  } finally {
    await nc.close();
  }

  const analyses = (await api.request('GET', `/api/v1/catalog/analyses?entityId=${entityId}`, { key })).body.analyses;
  expect(analyses.map((j: { jobId: string }) => j.jobId)).toEqual([job.jobId]);
  expect((await api.request('GET', '/api/v1/catalog/credits', { key })).body).toMatchObject({ balance: 9, reserved: 0 });
  const ledger = await api.admin('GET', `/admin/v1/organizations/${orgId}/credits`);
  expect(ledger.body.entries.map((e: { kind: string; amount: number }) => [e.kind, e.amount])).toEqual([
    ['settle', 0],
    ['reserve', -1],
    ['grant', 10],
  ]);
});

test('only a key with the analysis permission turns automatic analyses on or changes them; its opt-in is what charges', async () => {
  const { orgId, key: analysisKey } = await api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  const { key } = await api.apiKey(orgId, { permissions: ['catalog:api'] });
  await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 10, reason: 'test' });
  const balance = async () => (await api.request('GET', '/api/v1/catalog/credits', { key: analysisKey })).body;

  // A catalog:api-only key cannot turn them on: the type stays unconfigured, its audio costs nothing.
  const refused = await api.request('PUT', '/api/v1/catalog/entity-types/song', { key, body: { automaticAnalyses: ['loudness'] } });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { requiredPermission: 'catalog:analysis' } });
  expect((await api.request('GET', '/api/v1/catalog/entity-types/song', { key })).status).toBe(404);
  const unpaid = await versionConfirmed(key, 'song', 'DM-AUTO-PERM-1');
  expect((await api.request('GET', `/api/v1/catalog/analyses?entityId=${unpaid.entityId}`, { key: analysisKey })).body.analyses).toEqual(
    [],
  );

  // It may configure what costs nothing: a type without analyses, markers of the analyses chosen.
  const plain = await api.request('PUT', '/api/v1/catalog/entity-types/jingle', { key, body: { automaticAnalyses: [] } });
  expect(plain.status).toBe(200);

  // The permitted key opts in; the other key may then change the markers, not the analyses.
  const optIn = await api.request('PUT', '/api/v1/catalog/entity-types/song', {
    key: analysisKey,
    body: { automaticAnalyses: ['technical'] },
  });
  expect(optIn.status).toBe(200);
  const markers = await api.request('PUT', '/api/v1/catalog/entity-types/song', {
    key,
    body: { automaticAnalyses: ['technical'], cuePointMarkers: true },
  });
  expect(markers.body).toMatchObject({ automaticAnalyses: ['technical'], cuePointMarkers: true });
  for (const automaticAnalyses of [['technical', 'tempo'], []]) {
    const change = await api.request('PUT', '/api/v1/catalog/entity-types/song', { key, body: { automaticAnalyses } });
    expect(change.status).toBe(403);
  }
  expect((await api.request('GET', '/api/v1/catalog/entity-types/song', { key })).body.automaticAnalyses).toEqual(['technical']);

  // Audio the catalog:api key adds afterwards runs what the permitted key opted into.
  const paid = await versionConfirmed(key, 'song', 'DM-AUTO-PERM-2');
  const [job] = await jobsOf(analysisKey, paid.entityId, 1);
  expect(job).toMatchObject({ type: 'technical', status: 'SUCCEEDED', creditsCharged: 1 });
  expect(await balance()).toMatchObject({ balance: 9, reserved: 0 });
  expect((await api.request('GET', `/api/v1/catalog/analyses?entityId=${unpaid.entityId}`, { key: analysisKey })).body.analyses).toEqual(
    [],
  );
});
