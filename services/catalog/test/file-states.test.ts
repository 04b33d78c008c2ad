import type { Asset, Entity, Version } from '@catalog/contracts';
import { inTenantTransaction, newId, type BusEvent } from '@catalog/platform';
import { sineWav } from '@catalog/testing';
import { applyAssetEvent } from '../src/versions/consumers/asset-events.js';
import { recordAssetSnapshot } from '../src/versions/persistence/asset-states.js';
import { insertVersion } from '../src/versions/persistence/versions.js';
import { addUploadVersion, startHarness, uploadBytes, type CatalogHarness, type Caller } from './support.js';

/**
 * Decision 0115: the asset service tells the catalog what a confirmation left of a version's file
 * (`recordAssetState`) before the confirmation answers; the asset event still arrives, before or
 * after that call, and neither order records the automatic analyses twice.
 */
let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catfilestates', { withAssets: true });
});
afterAll(async () => {
  await h?.stop();
});

const STREAM = '2025-06-01T00:00:00.000Z';

/**
 * An entity of a type with automatic analyses, and an AUDIO version of a file the asset service
 * never saw (no event of it arrives), recorded PENDING_UPLOAD at `createdAt` as a version's
 * creation records the asset service's answer.
 */
async function versionOfUnknownFile(a: Caller, createdAt: Date): Promise<{ entityId: string; versionId: string; assetId: string }> {
  await a.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: ['tempo'] } });
  const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Ordered' } });
  const ids = { entityId: entity.id as string, versionId: newId(), assetId: newId() };
  const pending = { status: 'PENDING_UPLOAD', kind: 'AUDIO', contentType: 'audio/wav', size: 100, durationMs: null } as const;
  await inTenantTransaction(h.service.database.db, a.tenantId, async (trx) => {
    await recordAssetSnapshot(trx, a.tenantId, ids.assetId, pending, createdAt);
    const row = { id: ids.versionId, tenantId: a.tenantId, entityId: ids.entityId, assetId: ids.assetId };
    await insertVersion(trx, { ...row, kind: 'AUDIO', label: 'Edit', versionType: 'radio_edit', isPrimary: true });
  });
  return ids;
}

function onlineAsset(id: string, entityId: string, updatedAt: Date): Asset {
  const at = updatedAt.toISOString();
  return {
    id,
    status: 'ONLINE',
    retention: 'attached',
    kind: 'AUDIO',
    filename: 'tone.wav',
    contentType: 'audio/wav',
    size: 100,
    checksum: null,
    durationMs: 1000,
    entityId,
    failure: null,
    expiresAt: null,
    confirmedAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

/** The asset.confirmed event of that write: written at the start of its transaction, before the row's updatedAt. */
function confirmedEvent(tenantId: string, asset: Asset, occurredAt: Date): BusEvent {
  const { status, kind, contentType, size, durationMs, retention, entityId } = asset;
  return {
    id: newId(),
    tenantId,
    type: 'asset.confirmed',
    occurredAt: occurredAt.toISOString(),
    product: 'catalog',
    resourceKind: 'asset',
    resourceId: asset.id,
    dmrn: null,
    sourceSystem: 'public-api:confirmer',
    batchId: newId(),
    schemaVersion: 1,
    data: { status, kind, contentType, size, durationMs, retention, entityId },
  };
}

const requests = (versionId: string) => h.outbox({ resourceId: versionId, type: 'version.analyses_requested' });
const statusOf = async (a: Caller, ids: { entityId: string; versionId: string }) =>
  (await a.ok<Version>('getVersion', { params: { id: ids.entityId, versionId: ids.versionId } })).asset.status;

test('the confirmation first, the asset event after: the version is ONLINE at once and the analyses are requested once', async () => {
  const a = h.tenant();
  const written = new Date(Date.now() - 1000);
  const ids = await versionOfUnknownFile(a, new Date(written.getTime() - 60_000));
  const asset = onlineAsset(ids.assetId, ids.entityId, new Date(written.getTime() + 5));

  expect(await a.ok('recordAssetState', { body: asset })).toEqual({ analysesRequested: true });
  expect(await statusOf(a, ids)).toBe('ONLINE');
  expect(await a.ok('recordAssetState', { body: asset })).toEqual({ analysesRequested: false });
  const db = h.service.database.db;
  expect(await applyAssetEvent(db, confirmedEvent(a.tenantId, asset, written), { stream: STREAM, seq: 1 })).toBe('stale');
  // A later write's event is applied, and still requests nothing.
  expect(await applyAssetEvent(db, confirmedEvent(a.tenantId, asset, new Date()), { stream: STREAM, seq: 2 })).toBe('applied');

  const requested = await requests(ids.versionId);
  expect(requested).toHaveLength(1);
  expect(requested[0]).toMatchObject({ source_system: `public-api:${a.keyId}`, data: { assetId: ids.assetId, analysisTypes: ['tempo'] } });
});

test('the asset event first, the confirmation after: nothing more is recorded', async () => {
  const a = h.tenant();
  const written = new Date(Date.now() - 1000);
  const ids = await versionOfUnknownFile(a, new Date(written.getTime() - 60_000));
  const asset = onlineAsset(ids.assetId, ids.entityId, new Date(written.getTime() + 5));

  expect(await applyAssetEvent(h.service.database.db, confirmedEvent(a.tenantId, asset, written), { stream: STREAM, seq: 1 })).toBe(
    'applied',
  );
  expect(await requests(ids.versionId)).toHaveLength(1);
  expect(await a.ok('recordAssetState', { body: asset })).toEqual({ analysesRequested: false });
  expect(await statusOf(a, ids)).toBe('ONLINE');

  const requested = await requests(ids.versionId);
  expect(requested).toHaveLength(1);
  expect(requested[0]).toMatchObject({ source_system: 'public-api:confirmer' });
});

test('through the asset service: right after the confirmation the version, the entity and the analysis source see the file ONLINE', async () => {
  const a = h.tenant();
  const wav = await sineWav(1);
  const entity = await a.ok<Entity>('createEntity', { body: { type: 'jingle', title: 'At once' } });
  const reply = await addUploadVersion(a, entity.id, { size: wav.length });
  const version = (reply as { body: { id: string; upload: { url: string; headers: Record<string, string> }; asset: { id: string } } }).body;
  await uploadBytes(h, version.upload, wav);
  await h.assets(a).ok('confirmAsset', { params: { id: version.asset.id } });

  expect(await statusOf(a, { entityId: entity.id, versionId: version.id })).toBe('ONLINE');
  expect((await a.ok<Entity>('getEntity', { params: { id: entity.id } })).primaryAudioVersion).toMatchObject({ id: version.id });
  expect(await a.ok('resolveAnalysisSource', { body: { entityId: entity.id } })).toMatchObject({ versionId: version.id });
});
