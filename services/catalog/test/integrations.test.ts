import type { Integration } from '@catalog/contracts';
import { eventually } from '@catalog/testing';
import { errorOf, startHarness, type CatalogHarness, type Caller } from './support.js';

/** Integrations and their health (decisions 0132, 0133); assignments are assignments.test.ts. */
let h: CatalogHarness;

beforeAll(async () => {
  // The sweep runs when a test says so (the periodic one would race the tests' steps).
  h = await startHarness('catintegrations', { env: { CATALOG_HEARTBEAT_SWEEP_INTERVAL_MS: '3600000' } });
});

afterAll(async () => {
  await h?.stop();
});

/** A page of integrations, as listIntegrations answers. */
interface IntegrationPage {
  integrations: Integration[];
  nextCursor: string | null;
  hasMore: boolean;
}

const playout = (caller: Caller, extra: Record<string, unknown> = {}): Promise<Integration> =>
  caller.ok<Integration>('createIntegration', { body: { name: 'playout-a', kind: 'playout', system: 'mAirList', ...extra } });

const eventsOf = async (resourceId: string) =>
  (await h.outbox({ resourceId })).map((row) => ({ type: row.type, data: row.data, source: row.source_system }));

describe('integrations', () => {
  test('a new integration shows its source system, unknown health and no assignments, with integration.created', async () => {
    const a = h.tenant();
    const created = await playout(a);
    expect(created).toMatchObject({
      name: 'playout-a',
      kind: 'playout',
      system: 'mAirList',
      heartbeatSeconds: null,
      sourceSystem: 'playout-a',
      health: { status: 'unknown' },
      assignments: { pending: 0, synced: 0, failed: 0 },
    });
    expect(await a.ok('getIntegration', { params: { id: created.id } })).toEqual(created);
    expect(await eventsOf(created.id)).toEqual([
      { type: 'integration.created', data: { name: 'playout-a', kind: 'playout' }, source: `public-api:${a.keyId}` },
    ]);
  });

  test('names are unique per tenant (409), not across tenants', async () => {
    const a = h.tenant();
    await playout(a);
    const again = errorOf(await a.call('createIntegration', { body: { name: 'playout-a', kind: 'other' } }));
    expect(again).toMatchObject({ status: 409, code: 'integration_name_in_use', details: { name: 'playout-a' } });
    await playout(h.tenant());
    const other = await a.ok<Integration>('createIntegration', { body: { name: 'scheduler', kind: 'other' } });
    const renamed = errorOf(await a.call('updateIntegration', { params: { id: other.id }, body: { name: 'playout-a' } }));
    expect(renamed).toMatchObject({ status: 409, code: 'integration_name_in_use' });
  });

  test('a name is free text; the source system is derived from it, or given; each unique per tenant (409)', async () => {
    const a = h.tenant();
    const studio = await a.ok<Integration>('createIntegration', { body: { name: 'Studio A: Playout (Ünterhaus)', kind: 'playout' } });
    expect(studio).toMatchObject({ name: 'Studio A: Playout (Ünterhaus)', sourceSystem: 'studio-a-playout-unterhaus' });
    const given = await a.ok<Integration>('createIntegration', {
      body: { name: 'Studio B', sourceSystem: 'rivendell.b', kind: 'playout' },
    });
    expect(given).toMatchObject({ name: 'Studio B', sourceSystem: 'rivendell.b' });
    const clash = errorOf(await a.call('createIntegration', { body: { name: 'Studio  A playout unterhaus', kind: 'playout' } }));
    expect(clash).toMatchObject({ status: 409, code: 'source_system_in_use', details: { sourceSystem: 'studio-a-playout-unterhaus' } });
    const nothing = errorOf(await a.call('createIntegration', { body: { name: '★ ★', kind: 'playout' } }));
    expect(nothing).toMatchObject({ status: 400, code: 'invalid_source_system' });
    const badSlug = errorOf(await a.call('createIntegration', { body: { name: 'Studio C', sourceSystem: 'studio c', kind: 'playout' } }));
    expect(badSlug).toMatchObject({ status: 400, code: 'invalid_body' });
    // A rename leaves the source system: bound keys go on writing as before.
    const renamed = await a.ok<Integration>('updateIntegration', { params: { id: given.id }, body: { name: 'Studio B (old desk)' } });
    expect(renamed).toMatchObject({ name: 'Studio B (old desk)', sourceSystem: 'rivendell.b' });
    expect(await eventsOf(studio.id)).toEqual([
      { type: 'integration.created', data: { name: 'Studio A: Playout (Ünterhaus)', kind: 'playout' }, source: `public-api:${a.keyId}` },
    ]);
  });

  test('the listing pages by id with an opaque cursor; another tenant sees none', async () => {
    const a = h.tenant();
    const made = [];
    for (const name of ['p1', 'p2', 'p3']) made.push(await playout(a, { name }));
    const first = await a.ok<IntegrationPage>('listIntegrations', { query: { limit: 2 } });
    expect(first.integrations.map((i) => i.name)).toEqual(['p1', 'p2']);
    expect(first.hasMore).toBe(true);
    const second = await a.ok<IntegrationPage>('listIntegrations', { query: { limit: 2, after: first.nextCursor } });
    expect(second).toEqual({ integrations: [made[2]], nextCursor: null, hasMore: false });
    expect((await h.tenant().ok<IntegrationPage>('listIntegrations')).integrations).toEqual([]);
    expect(errorOf(await a.call('listIntegrations', { query: { after: 'bm90LWEtY3Vyc29y' } }))).toMatchObject({
      status: 400,
      code: 'invalid_cursor',
    });
  });

  test('a PATCH records the changed fields; one that changes nothing records nothing', async () => {
    const a = h.tenant();
    const created = await playout(a);
    const changed = await a.ok<Integration>('updateIntegration', {
      params: { id: created.id },
      body: { name: 'playout-b', system: null, heartbeatSeconds: 60 },
    });
    expect(changed).toMatchObject({ name: 'playout-b', sourceSystem: 'playout-a', system: null, heartbeatSeconds: 60 });
    const same = await a.ok<Integration>('updateIntegration', { params: { id: created.id }, body: { name: 'playout-b' } });
    expect(same.updatedAt).toBe(changed.updatedAt);
    expect((await eventsOf(created.id)).map((e) => [e.type, e.data])).toEqual([
      ['integration.created', { name: 'playout-a', kind: 'playout' }],
      ['integration.updated', { changedFields: ['name', 'system', 'heartbeatSeconds'] }],
    ]);
  });

  test('delete answers 404 afterwards, with integration.deleted', async () => {
    const a = h.tenant();
    const created = await playout(a);
    expect((await a.call('deleteIntegration', { params: { id: created.id } })).ok).toBe(true);
    expect(errorOf(await a.call('getIntegration', { params: { id: created.id } }))).toMatchObject({ status: 404, code: 'not_found' });
    expect(errorOf(await a.call('deleteIntegration', { params: { id: created.id } })).status).toBe(404);
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(['integration.created', 'integration.deleted']);
  });
});

describe('health', () => {
  test('a report changes the status (health_changed with the previous one); the same status again records nothing', async () => {
    const a = h.tenant();
    const created = await playout(a);
    const healthy = await a.ok<Integration>('reportIntegrationHealth', { params: { id: created.id }, body: { status: 'healthy' } });
    expect(healthy.health).toEqual({ status: 'healthy', since: expect.any(String) });
    const again = await a.ok<Integration>('reportIntegrationHealth', {
      params: { id: created.id },
      body: { status: 'healthy', message: 'ok' },
    });
    expect(again.health).toEqual({ status: 'healthy', since: healthy.health.since, message: 'ok' });
    const degraded = await a.ok<Integration>('reportIntegrationHealth', {
      params: { id: created.id },
      body: { status: 'degraded', message: 'disk 95 % full' },
    });
    expect(degraded.health).toMatchObject({ status: 'degraded', message: 'disk 95 % full' });
    expect((await eventsOf(created.id)).filter((e) => e.type === 'integration.health_changed').map((e) => e.data)).toEqual([
      { status: 'healthy', previous: 'unknown', reason: 'reported' },
      { status: 'degraded', previous: 'healthy', reason: 'reported' },
    ]);
  });

  test('no report within heartbeatSeconds: down by itself, recorded once by the sweep; the next report brings it back', async () => {
    const a = h.tenant();
    const created = await playout(a, { heartbeatSeconds: 1 });
    await a.ok('reportIntegrationHealth', { params: { id: created.id }, body: { status: 'healthy' } });
    const down = await eventually(async () => {
      const read = await a.ok<Integration>('getIntegration', { params: { id: created.id } });
      return read.health.status === 'down' ? read : undefined;
    });
    expect(down.health).toEqual({ status: 'down', since: expect.any(String), message: 'no health report within 1 s (heartbeatSeconds)' });
    expect(await h.service.sweepHeartbeats()).toBeGreaterThanOrEqual(1);
    await h.service.sweepHeartbeats();
    expect(await a.ok('getIntegration', { params: { id: created.id } })).toEqual(down);
    const back = await a.ok<Integration>('reportIntegrationHealth', { params: { id: created.id }, body: { status: 'healthy' } });
    expect(back.health.status).toBe('healthy');
    const changes = (await eventsOf(created.id)).filter((e) => e.type === 'integration.health_changed');
    expect(changes.map((e) => [e.data, e.source])).toEqual([
      [{ status: 'healthy', previous: 'unknown', reason: 'reported' }, `public-api:${a.keyId}`],
      [{ status: 'down', previous: 'healthy', reason: 'heartbeat_missed' }, 'catalog'],
      [{ status: 'healthy', previous: 'down', reason: 'reported' }, `public-api:${a.keyId}`],
    ]);
  });

  test('a lapse the sweep has not recorded yet shows down on read and is recorded before the next report', async () => {
    const a = h.tenant();
    const created = await playout(a, { heartbeatSeconds: 3600 });
    await a.ok('reportIntegrationHealth', { params: { id: created.id }, body: { status: 'degraded' } });
    // As if an hour passed without a report and without a sweep.
    await h.sql.query("update catalog.integrations set heartbeat_due_at = now() - interval '1 second' where id = $1", [created.id]);
    const read = await a.ok<Integration>('getIntegration', { params: { id: created.id } });
    expect(read.health).toMatchObject({ status: 'down', message: 'no health report within 3600 s (heartbeatSeconds)' });
    await a.ok('reportIntegrationHealth', { params: { id: created.id }, body: { status: 'healthy' } });
    expect(await h.service.sweepHeartbeats()).toBe(0);
    const changes = (await eventsOf(created.id)).filter((e) => e.type === 'integration.health_changed').map((e) => e.data);
    expect(changes).toEqual([
      { status: 'degraded', previous: 'unknown', reason: 'reported' },
      { status: 'down', previous: 'degraded', reason: 'heartbeat_missed' },
      { status: 'healthy', previous: 'down', reason: 'reported' },
    ]);
  });

  test('a new heartbeat does not hide a lapse not recorded yet: the PATCH records it first', async () => {
    const a = h.tenant();
    const created = await playout(a, { heartbeatSeconds: 60 });
    await a.ok('reportIntegrationHealth', { params: { id: created.id }, body: { status: 'healthy' } });
    await h.sql.query("update catalog.integrations set heartbeat_due_at = now() - interval '1 second' where id = $1", [created.id]);
    const patched = await a.ok<Integration>('updateIntegration', { params: { id: created.id }, body: { heartbeatSeconds: 3600 } });
    expect(patched.health).toMatchObject({ status: 'down', message: 'no health report within 60 s (heartbeatSeconds)' });
    expect((await eventsOf(created.id)).slice(2).map((e) => [e.type, e.data])).toEqual([
      ['integration.health_changed', { status: 'down', previous: 'healthy', reason: 'heartbeat_missed' }],
      ['integration.updated', { changedFields: ['heartbeatSeconds'] }],
    ]);
  });

  test('an unknown integration is 404; a bad status is 400', async () => {
    const a = h.tenant();
    const created = await playout(a);
    expect(
      errorOf(await a.call('reportIntegrationHealth', { params: { id: h.tenant().tenantId }, body: { status: 'healthy' } })).status,
    ).toBe(404);
    expect(errorOf(await a.call('reportIntegrationHealth', { params: { id: created.id }, body: { status: 'fine' } })).status).toBe(400);
  });
});
