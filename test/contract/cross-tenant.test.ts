import { routes, type RouteDefinition } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { sineWav, type ApiResponse } from '@catalog/testing';
import { useSystem } from '../support/use-system.js';
import { confirmUpload } from '../support/api.js';

/**
 * Every tenant-scoped operation of the route table, called with another tenant's ids, answers
 * exactly what it answers for ids that do not exist: 404 `not_found`, the same message and body
 * shape, nothing of the other tenant's data, nothing changed. The table below must name every
 * API-key route: a route added without an entry fails the first test.
 */
interface Ids {
  entityId: string;
  versionId: string;
  assetId: string;
  entityTypeName: string;
  /** An analysis job (of a standalone audio file). */
  jobId: string;
  /** An entity of the calling tenant (the same in both runs): for ids mixed across tenants. */
  ownEntityId: string;
  /** A relation of the entity (to another entity of its tenant). */
  relationId: string;
  /** A molecule playing the entity, and one of the calling tenant (the same in both runs). */
  moleculeId: string;
  ownMoleculeId: string;
  /** A playout integration carrying the entity, and one of the calling tenant (the same in both runs). */
  integrationId: string;
  ownIntegrationId: string;
  /** An import job, and its file (a standalone CSV asset). */
  importJobId: string;
  importFileId: string;
}

interface Probe {
  label: string;
  params: (ids: Ids) => Record<string, string>;
  body?: (ids: Ids) => unknown;
}

type Entry = { probes: Probe[] } | { notApplicable: string };

const entity = (ids: Ids) => ({ id: ids.entityId });
const version = (ids: Ids) => ({ id: ids.entityId, versionId: ids.versionId });
const versionUnderOwnEntity: Probe['params'] = (ids) => ({ id: ids.ownEntityId, versionId: ids.versionId });
const asset = (ids: Ids) => ({ id: ids.assetId });
const pngUpload = { filename: 'stolen.png', contentType: 'image/png' };
const molecule = (ids: Ids) => ({ id: ids.moleculeId });
const integration = (ids: Ids) => ({ id: ids.integrationId });
const assignmentProbes = (body?: Probe['body']): Probe[] => [
  { label: 'integration, own entity', params: (ids) => ({ id: ids.integrationId, entityId: ids.ownEntityId }), ...(body ? { body } : {}) },
  {
    label: 'entity under own integration',
    params: (ids) => ({ id: ids.ownIntegrationId, entityId: ids.entityId }),
    ...(body ? { body } : {}),
  },
];

const CROSS_TENANT: Record<string, Entry> = {
  createEntity: { notApplicable: 'takes no id: creates in the caller’s tenant' },
  createEntities: { notApplicable: 'takes no id: creates in the caller’s tenant' },
  listEntities: { notApplicable: 'lists the caller’s tenant; another tenant’s cursor is tenancy.test.ts' },
  getEntity: { probes: [{ label: 'entity', params: entity }] },
  updateEntity: { probes: [{ label: 'entity', params: entity, body: () => ({ title: 'stolen' }) }] },
  deleteEntity: { probes: [{ label: 'entity', params: entity }] },
  attachDmrn: { probes: [{ label: 'entity', params: entity, body: () => ({ value: 'DMRN-STOLEN' }) }] },
  detachDmrn: { probes: [{ label: 'entity', params: entity }] },
  listEntityTypes: { notApplicable: 'takes no id: lists the caller’s configured types' },
  getEntityType: { probes: [{ label: 'type configured by the other tenant', params: (ids) => ({ name: ids.entityTypeName }) }] },
  putEntityType: { notApplicable: 'configures the caller’s own type of that name (types are per tenant)' },
  createVersion: {
    probes: [
      { label: 'entity', params: entity, body: () => ({ source: { upload: pngUpload }, label: 'stolen', versionType: 'cover_art' }) },
      {
        label: 'asset as source, own entity',
        params: (ids) => ({ id: ids.ownEntityId }),
        body: (ids) => ({ source: { assetId: ids.assetId }, label: 'stolen', versionType: 'cover_art' }),
      },
    ],
  },
  listVersions: { probes: [{ label: 'entity', params: entity }] },
  getVersion: {
    probes: [
      { label: 'entity and version', params: version },
      { label: 'version under own entity', params: versionUnderOwnEntity },
    ],
  },
  updateVersion: {
    probes: [
      { label: 'entity and version', params: version, body: () => ({ label: 'stolen' }) },
      { label: 'version under own entity', params: versionUnderOwnEntity, body: () => ({ isPrimary: true }) },
    ],
  },
  deleteVersion: {
    probes: [
      { label: 'entity and version', params: version },
      { label: 'version under own entity', params: versionUnderOwnEntity },
    ],
  },
  putVersionMarkers: {
    probes: [
      { label: 'entity and version', params: version, body: () => ({ markers: [] }) },
      { label: 'version under own entity', params: versionUnderOwnEntity, body: () => ({ markers: [] }) },
    ],
  },
  createRelation: {
    probes: [
      { label: 'entity', params: entity, body: (ids) => ({ type: 'samples', targetId: ids.ownEntityId }) },
      {
        label: 'entity as target, own entity',
        params: (ids) => ({ id: ids.ownEntityId }),
        body: (ids) => ({ type: 'samples', targetId: ids.entityId }),
      },
    ],
  },
  listRelations: { probes: [{ label: 'entity', params: entity }] },
  deleteRelation: {
    probes: [
      { label: 'entity and relation', params: (ids) => ({ id: ids.entityId, relationId: ids.relationId }) },
      { label: 'relation under own entity', params: (ids) => ({ id: ids.ownEntityId, relationId: ids.relationId }) },
    ],
  },
  createAsset: { notApplicable: 'takes no id: creates in the caller’s tenant' },
  getAsset: { probes: [{ label: 'asset', params: asset }] },
  confirmAsset: { probes: [{ label: 'asset', params: asset }] },
  requestAssetUpload: { probes: [{ label: 'asset', params: asset, body: () => pngUpload }] },
  downloadAsset: { probes: [{ label: 'asset', params: asset }] },
  createAnalysis: {
    probes: [
      { label: 'asset as source', params: () => ({}), body: (ids) => ({ type: 'technical', source: { assetId: ids.assetId } }) },
      { label: 'entity as source', params: () => ({}), body: (ids) => ({ type: 'technical', source: { entityId: ids.entityId } }) },
      { label: 'version as source', params: () => ({}), body: (ids) => ({ type: 'technical', source: { versionId: ids.versionId } }) },
    ],
  },
  getAnalysis: { probes: [{ label: 'job', params: (ids) => ({ jobId: ids.jobId }) }] },
  listAnalyses: { notApplicable: 'lists the caller’s jobs: another tenant’s entityId or assetId filters to none, as a missing one' },
  getCredits: { notApplicable: 'takes no id: the caller’s own balance' },
  listEvents: { notApplicable: 'the caller’s own feed; another tenant’s cursor is a malformed cursor (events service tests)' },
  listTracks: { notApplicable: 'lists the caller’s tenant (library.test.ts reads another tenant’s track)' },
  getTrack: { probes: [{ label: 'entity', params: (ids) => ({ entityId: ids.entityId }) }] },
  listLibraryEvents: { notApplicable: 'the caller’s own library feed; another tenant’s cursor is a malformed cursor' },
  createMolecule: {
    probes: [
      {
        label: 'entity as element',
        params: () => ({}),
        body: (ids) => ({ title: 'stolen', elements: [{ entityId: ids.ownEntityId }, { entityId: ids.entityId }] }),
      },
    ],
  },
  listMolecules: { notApplicable: 'lists the caller’s tenant' },
  getMolecule: { probes: [{ label: 'molecule', params: molecule }] },
  updateMolecule: {
    probes: [
      { label: 'molecule', params: molecule, body: () => ({ title: 'stolen' }) },
      {
        label: 'entity as element of own molecule',
        params: (ids) => ({ id: ids.ownMoleculeId }),
        body: (ids) => ({ elements: [{ entityId: ids.entityId }] }),
      },
    ],
  },
  deleteMolecule: { probes: [{ label: 'molecule', params: molecule }] },
  createIntegration: { notApplicable: 'takes no id: creates in the caller’s tenant' },
  listIntegrations: { notApplicable: 'lists the caller’s tenant' },
  getIntegration: { probes: [{ label: 'integration', params: integration }] },
  updateIntegration: { probes: [{ label: 'integration', params: integration, body: () => ({ system: 'stolen' }) }] },
  deleteIntegration: { probes: [{ label: 'integration', params: integration }] },
  reportIntegrationHealth: { probes: [{ label: 'integration', params: integration, body: () => ({ status: 'down' }) }] },
  listAssignments: { probes: [{ label: 'integration', params: integration }] },
  putAssignment: { probes: assignmentProbes() },
  deleteAssignment: { probes: assignmentProbes() },
  reportAssignmentSync: { probes: assignmentProbes(() => ({ state: 'failed', error: 'stolen' })) },
  createJob: {
    probes: [{ label: 'import file', params: () => ({}), body: (ids) => ({ type: 'import', source: { assetId: ids.importFileId } }) }],
  },
  getJob: { probes: [{ label: 'import job', params: (ids) => ({ jobId: ids.importJobId }) }] },
  listJobs: { notApplicable: 'lists the caller’s tenant' },
};

const tenantScoped = routes.filter((route) => route.auth.kind === 'apiKey');

const sut = useSystem();

test('every tenant-scoped route of the route table has an entry, and every entry is a route', () => {
  expect(tenantScoped.map((route) => route.operationId).filter((id) => !(id in CROSS_TENANT))).toEqual([]);
  expect(Object.keys(CROSS_TENANT).filter((id) => !tenantScoped.some((route) => route.operationId === id))).toEqual([]);
  // An id in the path can always be another tenant's: such a route must be probed.
  expect(
    tenantScoped
      .filter((route) => /\{(id|versionId)\}/.test(route.path) && 'notApplicable' in CROSS_TENANT[route.operationId]!)
      .map((r) => r.operationId),
  ).toEqual([]);
});

/** Tenant A's import job and its file (decision 0134). */
async function tenantAImport(key: string): Promise<Pick<Ids, 'importJobId' | 'importFileId'>> {
  const csv = Buffer.from('type,title\nsong,Only for A\n');
  const file = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'a.csv', contentType: 'text/csv', size: csv.length } },
  });
  expect((await fetch(file.body.upload.url, { method: 'PUT', headers: file.body.upload.headers, body: csv })).status).toBe(200);
  expect((await confirmUpload(sut.api, key, file.body.id)).status).toBe(200);
  const job = await sut.api.request('POST', '/api/v1/catalog/jobs', { key, body: { type: 'import', source: { assetId: file.body.id } } });
  expect(job.status).toBe(202);
  return { importJobId: job.body.jobId, importFileId: file.body.id };
}

/** Tenant A's analysis job of a standalone audio file. */
async function tenantAJob(orgId: string, key: string): Promise<string> {
  const wav = await sineWav(1, { sampleRate: 8_000 });
  const asset = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'a.wav', contentType: 'audio/wav', size: wav.length } },
  });
  expect((await fetch(asset.body.upload.url, { method: 'PUT', headers: asset.body.upload.headers, body: wav })).status).toBe(200);
  expect((await confirmUpload(sut.api, key, asset.body.id)).status).toBe(200);
  expect((await sut.api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 1, reason: 'test' })).status).toBe(201);
  const job = await sut.api.request('POST', '/api/v1/catalog/analyses', {
    key,
    body: { type: 'technical', source: { assetId: asset.body.id } },
  });
  expect(job.status).toBe(202);
  return job.body.jobId as string;
}

/** A playout integration of the tenant; with `entityId`, carrying that entity. */
async function playoutIntegration(key: string, entityId?: string): Promise<string> {
  const created = await sut.api.request('POST', '/api/v1/catalog/integrations', {
    key,
    body: { name: 'studio-a', kind: 'playout', system: 'mAirList' },
  });
  expect(created.status).toBe(201);
  if (entityId) {
    const assigned = await sut.api.request('PUT', `/api/v1/catalog/integrations/${created.body.id}/assignments/${entityId}`, { key });
    expect(assigned.status).toBe(200);
  }
  return created.body.id as string;
}

/** A molecule of the tenant playing `entityId`. */
async function moleculeOf(key: string, entityId: string, title: string): Promise<string> {
  const created = await sut.api.request('POST', '/api/v1/catalog/molecules', { key, body: { title, elements: [{ entityId }] } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** A relation of the tenant from `entityId` to another entity of the tenant. */
async function relationOf(key: string, entityId: string): Promise<string> {
  const other = await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Original of A' } });
  const created = await sut.api.request('POST', `/api/v1/catalog/entities/${entityId}/relations`, {
    key,
    body: { type: 'remix_of', targetId: other.body.id },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** Tenant A's entity with a confirmed cover-art version, and its configured entity type. */
async function tenantAData(key: string): Promise<Pick<Ids, 'entityId' | 'versionId' | 'assetId' | 'entityTypeName'>> {
  const created = await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Only for A' } });
  const entityId = created.body.id as string;
  const added = await sut.api.request('POST', `/api/v1/catalog/entities/${entityId}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'cover.png', contentType: 'image/png', size: 64 } },
      label: 'Cover of A',
      versionType: 'cover_art',
    },
  });
  expect(added.status).toBe(201);
  const put = await fetch(added.body.upload.url, { method: 'PUT', headers: added.body.upload.headers, body: Buffer.alloc(64, 5) });
  expect(put.status).toBeLessThan(300);
  expect((await confirmUpload(sut.api, key, added.body.asset.id)).body.status).toBe('ONLINE');
  expect(
    (await sut.api.request('PUT', '/api/v1/catalog/entity-types/song', { key, body: { automaticAnalyses: ['loudness'] } })).status,
  ).toBe(200);
  return { entityId, versionId: added.body.id, assetId: added.body.asset.id, entityTypeName: 'song' };
}

function call(route: RouteDefinition, probe: Probe, ids: Ids, key: string): Promise<ApiResponse> {
  const values = probe.params(ids);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (values[name] === undefined) throw new Error(`${route.operationId}: probe ${probe.label} gives no {${name}}`);
    return values[name];
  });
  return sut.api.request(route.method, path, { key, ...(probe.body ? { body: probe.body(ids) } : {}) });
}

/** What a client sees of an answer, the request id aside (it differs per request by design). */
const seen = (response: ApiResponse) => ({
  status: response.status,
  body: {
    ...response.body,
    ...(response.body?.error ? { error: { ...response.body.error, requestId: typeof response.body.error.requestId } } : {}),
  },
});

test('another tenant’s ids answer exactly like missing ones on every route, and change nothing', async () => {
  const both = { products: ['catalog', 'library'], permissions: ['catalog:api', 'catalog:analysis', 'library:api'] };
  const a = await sut.api.tenant({ name: 'Station A', ...both });
  const b = await sut.api.tenant({ name: 'Station B', ...both });
  const ownEntityId = (await sut.api.request('POST', '/api/v1/catalog/entities', { key: b.key, body: { type: 'song', title: 'B' } })).body
    .id as string;
  const ownMoleculeId = await moleculeOf(b.key, ownEntityId, 'B');
  const ownIntegrationId = await playoutIntegration(b.key);
  const dataOfA = await tenantAData(a.key);
  const integrationOfA = await playoutIntegration(a.key, dataOfA.entityId);
  const foreign: Ids = {
    ...dataOfA,
    jobId: await tenantAJob(a.orgId, a.key),
    ownEntityId,
    moleculeId: await moleculeOf(a.key, dataOfA.entityId, 'Only for A'),
    ownMoleculeId,
    integrationId: integrationOfA,
    ownIntegrationId,
    relationId: await relationOf(a.key, dataOfA.entityId),
    ...(await tenantAImport(a.key)),
  };
  const missing: Ids = {
    entityId: newId(),
    versionId: newId(),
    assetId: newId(),
    entityTypeName: 'jingle',
    jobId: newId(),
    ownEntityId,
    moleculeId: newId(),
    ownMoleculeId,
    integrationId: newId(),
    ownIntegrationId,
    relationId: newId(),
    importJobId: newId(),
    importFileId: newId(),
  };

  const probed: string[] = [];
  for (const route of tenantScoped) {
    const entry = CROSS_TENANT[route.operationId]!;
    if ('notApplicable' in entry) continue;
    for (const probe of entry.probes) {
      const label = `${route.operationId} (${probe.label})`;
      const answer = seen(await call(route, probe, foreign, b.key));
      expect({ label, ...answer }).toEqual({ label, ...seen(await call(route, probe, missing, b.key)) });
      expect({ label, status: answer.status, code: answer.body.error?.code }).toEqual({ label, status: 404, code: 'not_found' });
      expect(Object.keys(answer.body)).toEqual(['error']);
      expect(Object.keys(answer.body.error).sort()).toEqual(['code', 'message', 'requestId']);
      probed.push(label);
    }
  }
  expect(probed).toContain('getVersion (version under own entity)');
  expect(probed).toContain('deleteVersion (entity and version)');
  expect(probed).toContain('createAnalysis (version as source)');
  expect(probed).toContain('getAnalysis (job)');

  // Tenant A's data is as it was.
  const entityOfA = await sut.api.request('GET', `/api/v1/catalog/entities/${foreign.entityId}`, { key: a.key });
  expect(entityOfA.body).toMatchObject({ title: 'Only for A', externalReferences: { dmrn: null } });
  const versionOfA = await sut.api.request('GET', `/api/v1/catalog/entities/${foreign.entityId}/versions/${foreign.versionId}`, {
    key: a.key,
  });
  expect(versionOfA.body).toMatchObject({
    label: 'Cover of A',
    isPrimary: true,
    markers: [],
    asset: { id: foreign.assetId, status: 'ONLINE' },
  });
  expect((await sut.api.request('GET', `/api/v1/catalog/entity-types/song`, { key: a.key })).body).toMatchObject({
    automaticAnalyses: ['loudness'],
  });
  expect((await sut.api.request('GET', `/api/v1/catalog/entities/${ownEntityId}/versions`, { key: b.key })).body.versions).toEqual([]);
  expect((await sut.api.request('GET', `/api/v1/catalog/analyses`, { key: b.key })).body.analyses).toEqual([]);
  expect((await sut.api.request('GET', `/api/v1/catalog/analyses/${foreign.jobId}`, { key: a.key })).body.jobId).toBe(foreign.jobId);
  const relationsOfA = await sut.api.request('GET', `/api/v1/catalog/entities/${foreign.entityId}/relations`, { key: a.key });
  expect(relationsOfA.body.relations.map((r: { id: string }) => r.id)).toEqual([foreign.relationId]);
  expect((await sut.api.request('GET', `/api/v1/catalog/entities/${ownEntityId}/relations`, { key: b.key })).body.relations).toEqual([]);
  const moleculeOfA = await sut.api.request('GET', `/api/v1/catalog/molecules/${foreign.moleculeId}`, { key: a.key });
  expect(moleculeOfA.body).toMatchObject({ title: 'Only for A', elements: [{ entityId: foreign.entityId }] });
  const moleculeOfB = await sut.api.request('GET', `/api/v1/catalog/molecules/${ownMoleculeId}`, { key: b.key });
  expect(moleculeOfB.body).toMatchObject({ title: 'B', elements: [{ entityId: ownEntityId }] });
  expect((await sut.api.request('GET', `/api/v1/catalog/integrations/${foreign.integrationId}`, { key: a.key })).body).toMatchObject({
    system: 'mAirList',
    health: { status: 'unknown' },
    assignments: { pending: 1, synced: 0, failed: 0 },
  });
  expect((await sut.api.request('GET', `/api/v1/catalog/jobs/${foreign.importJobId}`, { key: a.key })).body.jobId).toBe(
    foreign.importJobId,
  );
  expect((await sut.api.request('GET', '/api/v1/catalog/jobs', { key: b.key })).body.jobs).toEqual([]);
});
