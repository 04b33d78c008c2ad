import type { Assignment, Entity, Integration } from '@catalog/contracts';
import { addUploadVersion, errorOf, startHarness, type CatalogHarness, type Caller, type OutboxRow } from './support.js';

/** Assignments of entities to playout integrations and their sync state (decision 0132). */
let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catassignments', { withAssets: true });
});

afterAll(async () => {
  await h?.stop();
});

interface Setup {
  a: Caller;
  integrationId: string;
  entityId: string;
  versionId: string;
}

async function version(a: Caller, entityId: string, options: Parameters<typeof addUploadVersion>[2] = {}): Promise<string> {
  const reply = await addUploadVersion(a, entityId, options);
  if (!reply.ok) throw new Error(`createVersion failed: ${JSON.stringify(reply.error)}`);
  return (reply.body as { id: string }).id;
}

/** A tenant with a playout integration and a song with one AUDIO version, assigned. */
async function assigned(): Promise<Setup> {
  const a = h.tenant();
  const integration = await a.ok<Integration>('createIntegration', { body: { name: 'studio-a', kind: 'playout' } });
  const entity = await a.ok<Entity>('createEntity', {
    body: { type: 'song', title: 'Song', externalReferences: { dmrn: `DM-${a.tenantId}` } },
  });
  const versionId = await version(a, entity.id);
  await a.ok('putAssignment', { params: { id: integration.id, entityId: entity.id } });
  return { a, integrationId: integration.id, entityId: entity.id, versionId };
}

const sync = (s: Setup, body: Record<string, unknown>) =>
  s.a.call('reportAssignmentSync', { params: { id: s.integrationId, entityId: s.entityId }, body });

const stateChanges = async (s: Setup) =>
  (await h.outbox({ tenantId: s.a.tenantId, type: 'assignment.sync_state_changed' })).map((row) => row.data);

describe('assignments', () => {
  test('an assignment is pending, with assignment.created; assigning again answers the same and records nothing', async () => {
    const s = await assigned();
    const again = await s.a.ok<Assignment>('putAssignment', { params: { id: s.integrationId, entityId: s.entityId } });
    expect(again).toMatchObject({ integrationId: s.integrationId, entityId: s.entityId, syncState: 'pending', versionIds: [] });
    const created = await h.outbox({ tenantId: s.a.tenantId, type: 'assignment.created' });
    expect(created.map((r) => [r.resource_id, r.resource_kind, r.dmrn, r.data])).toEqual([
      [again.id, 'assignment', `DM-${s.a.tenantId}`, { integrationId: s.integrationId, entityId: s.entityId }],
    ]);
    const integration = await s.a.ok<Integration>('getIntegration', { params: { id: s.integrationId } });
    expect(integration.assignments).toEqual({ pending: 1, synced: 0, failed: 0 });
  });

  test('only a playout integration carries entities (409); unknown integration or entity is 404', async () => {
    const s = await assigned();
    const other = await s.a.ok<Integration>('createIntegration', { body: { name: 'scheduler', kind: 'other' } });
    expect(errorOf(await s.a.call('putAssignment', { params: { id: other.id, entityId: s.entityId } }))).toMatchObject({
      status: 409,
      code: 'not_a_playout_integration',
    });
    const stranger = h.tenant().tenantId;
    expect(errorOf(await s.a.call('putAssignment', { params: { id: stranger, entityId: s.entityId } }))).toMatchObject({
      status: 404,
      message: 'integration not found',
    });
    expect(errorOf(await s.a.call('putAssignment', { params: { id: s.integrationId, entityId: stranger } }))).toMatchObject({
      status: 404,
      message: 'entity not found',
    });
  });

  test('synced with the primary versions; failed needs its error; the listing filters by state', async () => {
    const s = await assigned();
    const synced = await sync(s, { state: 'synced', versionIds: [s.versionId], externalId: 'CART-1' });
    expect(synced.ok && synced.body).toMatchObject({ syncState: 'synced', versionIds: [s.versionId], externalId: 'CART-1', error: null });
    expect(errorOf(await sync(s, { state: 'failed' }))).toMatchObject({ status: 400, code: 'invalid_report' });
    expect(errorOf(await sync(s, { state: 'synced', error: 'no' }))).toMatchObject({ status: 400, code: 'invalid_report' });
    const failed = await sync(s, { state: 'failed', error: 'disk full' });
    expect(failed.ok && failed.body).toMatchObject({ syncState: 'failed', error: 'disk full', externalId: 'CART-1' });
    const list = (syncState?: string) =>
      s.a.ok<{ assignments: Assignment[] }>('listAssignments', { params: { id: s.integrationId }, query: syncState ? { syncState } : {} });
    expect((await list('failed')).assignments.map((x) => x.entityId)).toEqual([s.entityId]);
    expect((await list('synced')).assignments).toEqual([]);
    expect(await stateChanges(s)).toEqual([
      {
        integrationId: s.integrationId,
        entityId: s.entityId,
        state: 'synced',
        previous: 'pending',
        versionIds: [s.versionId],
        reason: null,
      },
      {
        integrationId: s.integrationId,
        entityId: s.entityId,
        state: 'failed',
        previous: 'synced',
        versionIds: [s.versionId],
        reason: 'disk full',
      },
    ]);
  });

  test('a primary change makes a synced assignment pending in the same transaction as the version change', async () => {
    const s = await assigned();
    await sync(s, { state: 'synced', versionIds: [s.versionId] });
    const second = await version(s.a, s.entityId, { isPrimary: true, label: 'Full length', versionType: 'full_length' });
    const rows = await h.outbox({ tenantId: s.a.tenantId });
    const primary = rows.filter((r) => r.type === 'version.primary_changed').at(-1)!;
    const pending = rows.filter((r) => r.type === 'assignment.sync_state_changed').at(-1)!;
    expect(pending.data).toEqual({
      integrationId: s.integrationId,
      entityId: s.entityId,
      state: 'pending',
      previous: 'synced',
      versionIds: [second],
      reason: 'primary_changed',
    });
    expect([pending.tx_id, pending.batch_id]).toEqual([primary.tx_id, primary.batch_id]);
    // A report of the former primary leaves it pending; the new one syncs it.
    const stale = await sync(s, { state: 'synced', versionIds: [s.versionId] });
    expect(stale.ok && (stale.body as { syncState: string }).syncState).toBe('pending');
    const fresh = await sync(s, { state: 'synced', versionIds: [second] });
    expect(fresh.ok && fresh.body).toMatchObject({ syncState: 'synced', versionIds: [second] });
    // Deleting the primary promotes the other version: pending again.
    await s.a.ok('deleteVersion', { params: { id: s.entityId, versionId: second } });
    const last = (await stateChanges(s)).at(-1);
    expect(last).toMatchObject({ state: 'pending', previous: 'synced', versionIds: [s.versionId], reason: 'primary_changed' });
  });

  test('a stale report of a synced assignment makes it pending (reason stale_report); a change of a pending one records nothing', async () => {
    const s = await assigned();
    await version(s.a, s.entityId, { isPrimary: true, label: 'Full length', versionType: 'full_length' });
    expect(await stateChanges(s)).toEqual([]);
    const bogus = await sync(s, { state: 'synced', versionIds: [s.versionId] });
    expect(bogus.ok && (bogus.body as { syncState: string }).syncState).toBe('pending');
    await sync(s, { state: 'synced' });
    expect((await stateChanges(s)).map((d) => d.state)).toEqual(['synced']);
    const stale = await sync(s, { state: 'failed', versionIds: [s.versionId], error: 'gone' });
    expect(stale.ok && stale.body).toMatchObject({ syncState: 'pending', error: null });
    expect((await stateChanges(s)).at(-1)).toMatchObject({ state: 'pending', previous: 'synced', reason: 'stale_report' });
  });

  test('a report for an entity not assigned is 404', async () => {
    const s = await assigned();
    const other = await s.a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Other' } });
    const reply = await s.a.call('reportAssignmentSync', {
      params: { id: s.integrationId, entityId: other.id },
      body: { state: 'synced' },
    });
    expect(errorOf(reply)).toMatchObject({ status: 404, message: 'assignment not found' });
  });

  test('unassigning records assignment.deleted (unassigned); unassigning again changes nothing', async () => {
    const s = await assigned();
    const params = { id: s.integrationId, entityId: s.entityId };
    expect((await s.a.call('deleteAssignment', { params })).ok).toBe(true);
    expect((await s.a.call('deleteAssignment', { params })).ok).toBe(true);
    const deleted = await h.outbox({ tenantId: s.a.tenantId, type: 'assignment.deleted' });
    expect(deleted.map((r) => r.data)).toEqual([{ integrationId: s.integrationId, entityId: s.entityId, reason: 'unassigned' }]);
    expect((await s.a.ok<{ assignments: Assignment[] }>('listAssignments', { params: { id: s.integrationId } })).assignments).toEqual([]);
  });

  test("deleting the entity removes its assignments in the entity's transaction", async () => {
    const s = await assigned();
    const second = await s.a.ok<Integration>('createIntegration', { body: { name: 'studio-b', kind: 'playout' } });
    await s.a.ok('putAssignment', { params: { id: second.id, entityId: s.entityId } });
    await s.a.ok('deleteEntity', { params: { id: s.entityId } });
    const rows = await h.outbox({ tenantId: s.a.tenantId });
    const entityDeleted = rows.find((r) => r.type === 'entity.deleted')!;
    const removed = rows.filter((r) => r.type === 'assignment.deleted');
    expect(removed.map((r: OutboxRow) => [r.data.integrationId, r.data.reason, r.tx_id === entityDeleted.tx_id, r.dmrn])).toEqual([
      [s.integrationId, 'entity_deleted', true, `DM-${s.a.tenantId}`],
      [second.id, 'entity_deleted', true, `DM-${s.a.tenantId}`],
    ]);
    expect((await s.a.ok<Integration>('getIntegration', { params: { id: second.id } })).assignments).toEqual({
      pending: 0,
      synced: 0,
      failed: 0,
    });
  });

  test('deleting the integration removes its assignments, then the integration, in one batch', async () => {
    const s = await assigned();
    await s.a.ok('deleteIntegration', { params: { id: s.integrationId } });
    const rows = (await h.outbox({ tenantId: s.a.tenantId })).filter((r) => ['assignment.deleted', 'integration.deleted'].includes(r.type));
    expect(rows.map((r) => [r.type, r.data.reason ?? null])).toEqual([
      ['assignment.deleted', 'integration_deleted'],
      ['integration.deleted', null],
    ]);
    expect(rows[0]!.batch_id).toBe(rows[1]!.batch_id);
    expect(errorOf(await s.a.call('listAssignments', { params: { id: s.integrationId } })).status).toBe(404);
  });
});
